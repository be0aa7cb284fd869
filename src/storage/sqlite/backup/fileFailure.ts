import { BackupFailed } from "./errors.js"

/** The error code of a Node file-system error or of a better-sqlite3 error ("SQLITE_FULL"…). */
const errorCode = (cause: unknown) =>
  typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" ? cause.code : ""

const describe = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause))

/**
 * What went wrong with a file, as the operator can act on it: a full disk, a path that cannot be
 * written, a missing directory, a store another process holds locked; anything else as it is.
 */
export const fileFailure = (doing: string, path: string, cause: unknown): BackupFailed => {
  const code = errorCode(cause)
  if (code === "ENOSPC" || code.startsWith("SQLITE_FULL")) {
    return new BackupFailed({ code: "disk_full", message: `no space left on the device while ${doing} (${path}); free some space and run it again` })
  }
  if (["EACCES", "EPERM", "EROFS"].includes(code) || code.startsWith("SQLITE_READONLY")) {
    return new BackupFailed({ code: "not_writable", message: `${path} cannot be written while ${doing}: ${describe(cause)}` })
  }
  if (code === "ENOENT" || code === "ENOTDIR" || code.startsWith("SQLITE_CANTOPEN")) {
    return new BackupFailed({ code: "directory_missing", message: `${path} does not exist or is not a directory (while ${doing})` })
  }
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) {
    return new BackupFailed({ code: "store_locked", message: `another process kept a lock past SQLite's wait while ${doing} (${path}); run it again` })
  }
  return new BackupFailed({ code: "backup_io_failed", message: `${doing} failed (${path}): ${describe(cause)}` })
}
