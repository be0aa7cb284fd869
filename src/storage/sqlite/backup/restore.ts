import { Effect } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { BackupFailed } from "./errors.js"
import { fileFailure } from "./fileFailure.js"
import { createDirectory, fileDigest, isAbsentOrEmpty, syncPath } from "./files.js"
import { controlCopy, type StoreEntry, userCopy } from "./manifest.js"
import type { StoreProgress } from "./backup.js"
import { verifyBackup } from "./verify.js"

const notEmpty = (dataRoot: string) =>
  new BackupFailed({ code: "restore_target_not_empty", message: `${dataRoot} is not empty: restore into a new or empty directory` })

/** Copies one file into the staging root and checks the copy against the manifest. */
const copyInto = (source: string, target: string, entry: StoreEntry) =>
  Effect.gen(function*() {
    yield* createDirectory(NodePath.dirname(target), "restoring")
    yield* Effect.try({ try: () => NodeFs.copyFileSync(source, target, NodeFs.constants.COPYFILE_EXCL), catch: (cause) => fileFailure("restoring", target, cause) })
    yield* syncPath(target)
    yield* syncPath(NodePath.dirname(target))
    const { sha256 } = yield* fileDigest(target)
    if (sha256 !== entry.sha256) {
      return yield* new BackupFailed({ code: "restore_copy_mismatch", message: `the copy of ${source} at ${target} does not match the manifest's checksum` })
    }
  })

/**
 * Restores a backup into a new data root, whole or not at all: the backup is verified first, its
 * files copied into a temporary sibling of the new root and checked, and the sibling renamed into
 * place in one step. The new root must not exist or be empty, and is left as it was on any failure.
 */
export const restoreBackup = (options: {
  readonly from: string
  readonly dataRoot: string
  readonly onProgress: (progress: StoreProgress) => Effect.Effect<void>
}) =>
  Effect.gen(function*() {
    const dataRoot = NodePath.resolve(options.dataRoot)
    if (!isAbsentOrEmpty(dataRoot)) return yield* notEmpty(dataRoot)
    const verified = yield* verifyBackup(options.from, options.onProgress)
    const parent = NodePath.dirname(dataRoot)
    yield* createDirectory(parent, "creating the data root's parent")
    const staging = NodePath.join(parent, `.${NodePath.basename(dataRoot)}.restoring-${process.pid}`)
    let renamed = false
    return yield* Effect.gen(function*() {
      yield* Effect.try({ try: () => NodeFs.mkdirSync(staging), catch: (cause) => fileFailure("creating a staging directory", staging, cause) })
      const { manifest } = verified
      yield* copyInto(controlCopy(options.from), controlCopy(staging), manifest.control)
      for (const [done, entry] of manifest.users.entries()) {
        yield* options.onProgress({ done, total: manifest.users.length, current: entry.user_id })
        yield* copyInto(userCopy(options.from, entry.user_id), userCopy(staging, entry.user_id), entry)
      }
      yield* options.onProgress({ done: manifest.users.length, total: manifest.users.length, current: null })
      yield* syncPath(staging)
      // rename(2) replaces an empty directory in one step and refuses one that filled meanwhile.
      yield* Effect.try({
        try: () => NodeFs.renameSync(staging, dataRoot),
        catch: (cause) => isAbsentOrEmpty(dataRoot) ? fileFailure("moving the restored root into place", dataRoot, cause) : notEmpty(dataRoot)
      })
      renamed = true
      yield* syncPath(parent)
      return { ...verified, dataRoot }
    }).pipe(Effect.ensuring(Effect.sync(() => renamed || NodeFs.rmSync(staging, { recursive: true, force: true }))))
  })
