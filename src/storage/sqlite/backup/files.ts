import { Effect } from "effect"
import * as NodeCrypto from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { BackupFailed } from "./errors.js"
import { fileFailure } from "./fileFailure.js"

const CHUNK_BYTES = 1 << 20

/** A file's SHA-256 (hex) and size, read in chunks. */
export const fileDigest = (path: string) =>
  Effect.try({
    try: () => {
      const hash = NodeCrypto.createHash("sha256")
      const buffer = Buffer.allocUnsafe(CHUNK_BYTES)
      const fd = NodeFs.openSync(path, "r")
      let bytes = 0
      try {
        for (let read = NodeFs.readSync(fd, buffer); read > 0; read = NodeFs.readSync(fd, buffer)) {
          hash.update(buffer.subarray(0, read))
          bytes += read
        }
      } finally {
        NodeFs.closeSync(fd)
      }
      return { sha256: hash.digest("hex"), bytes }
    },
    catch: (cause) => fileFailure("reading a file", path, cause)
  })

/** Flushes a file or a directory (its entries) to the disk. */
export const syncPath = (path: string) =>
  Effect.try({
    try: () => {
      const fd = NodeFs.openSync(path, "r")
      try {
        NodeFs.fsyncSync(fd)
      } finally {
        NodeFs.closeSync(fd)
      }
    },
    catch: (cause) => fileFailure("flushing to the disk", path, cause)
  })

/** A directory that must exist: refused with `code` otherwise. */
export const existingDirectory = (path: string, code: string, what: string) =>
  NodeFs.existsSync(path) && NodeFs.statSync(path).isDirectory()
    ? Effect.void
    : Effect.fail(new BackupFailed({ code, message: `${what} ${path} does not exist or is not a directory` }))

/** Whether a path is absent or an empty directory: somewhere to write a backup or a data root into. */
export const isAbsentOrEmpty = (path: string) =>
  !NodeFs.existsSync(path) || (NodeFs.statSync(path).isDirectory() && NodeFs.readdirSync(path).length === 0)

/** mkdir -p one level at a time: Node's recursive mkdir reports a read-only file system as ENOENT. */
const makeDirectories = (path: string): void => {
  if (NodeFs.existsSync(path)) return
  makeDirectories(NodePath.dirname(path))
  NodeFs.mkdirSync(path)
}

/** Creates a directory and any missing parents; a failure says what was being done. */
export const createDirectory = (path: string, doing: string) =>
  Effect.try({ try: () => makeDirectories(path), catch: (cause) => fileFailure(doing, path, cause) })
