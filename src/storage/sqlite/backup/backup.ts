import { Effect } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { isValidUserId } from "../../../domain/userId.js"
import { nowTimestamp } from "../../../util/timestamps.js"
import { SERVICE_VERSION } from "../../../version.js"
import { controlDbPath } from "../control/ControlDb.js"
import { userDirectories } from "../inventory.js"
import { storeFilePath } from "../storeFile.js"
import { BackupFailed } from "./errors.js"
import { createDirectory, existingDirectory, fileDigest, isAbsentOrEmpty, syncPath } from "./files.js"
import { inspectStore, type StoreKind } from "./inspect.js"
import { onlineCopy } from "./onlineCopy.js"
import { controlCopy, type Manifest, type StoreEntry, userCopy, writeManifest } from "./manifest.js"

export interface StoreProgress {
  readonly done: number
  readonly total: number
  /** The user in hand; null once all are done. */
  readonly current: string | null
}

export interface BackupSummary {
  readonly target: string
  readonly users: number
  readonly bytes: number
  /** Users listed at the start whose store was erased before its turn came. */
  readonly erased: ReadonlyArray<string>
  /** Directories of the data root that are no user's store (not a valid user_id): not copied. */
  readonly ignored: ReadonlyArray<string>
}

/** A fresh directory for the backup, outside the data root: an existing one must be empty, so that nothing else mixes in. */
const prepareTarget = (dataRoot: string, target: string) =>
  Effect.gen(function*() {
    const inside = NodePath.relative(NodePath.resolve(dataRoot), NodePath.resolve(target))
    if (inside !== ".." && !inside.startsWith(`..${NodePath.sep}`) && !NodePath.isAbsolute(inside)) {
      return yield* new BackupFailed({ code: "backup_target_inside_data_root", message: `${target} is inside the data root ${dataRoot}: back up somewhere else` })
    }
    if (!isAbsentOrEmpty(target)) {
      return yield* new BackupFailed({ code: "backup_target_not_empty", message: `${target} is not empty: back up into a new or empty directory` })
    }
    yield* createDirectory(target, "creating the backup directory")
  })

/** One store copied as of one moment, counted on the copy, and checksummed once flushed. */
const copyStore = (source: string, target: string, kind: StoreKind) =>
  Effect.gen(function*() {
    yield* createDirectory(NodePath.dirname(target), "creating a directory")
    const copiedAt = yield* nowTimestamp
    yield* onlineCopy(source, target)
    const { inspection } = yield* inspectStore(target, kind, { integrity: false }).pipe(
      Effect.mapError((message) => new BackupFailed({ code: "backup_io_failed", message: `the copy ${target} cannot be read: ${message}` }))
    )
    yield* syncPath(target)
    const { bytes, sha256 } = yield* fileDigest(target)
    return { schema_version: inspection.schemaVersion, rows: inspection.rows, bytes, sha256, copied_at: copiedAt } satisfies StoreEntry
  })

/**
 * Backs up a data root into `target` while a service may be running on it: read-only on the
 * source, no lock taken. The control database is copied first, then each user's store (listed at
 * the start, in id order), each as of its own moment; the manifest is written last. Copied in
 * that order, a job the control plane still holds as pending may already be applied in a user's
 * copy (the store records applied jobs, so a resumed job is not applied twice); never the
 * reverse, a job recorded as done whose writes the copy lacks.
 */
export const backupDataRoot = (options: {
  readonly dataRoot: string
  readonly target: string
  readonly onProgress: (progress: StoreProgress) => Effect.Effect<void>
}) =>
  Effect.gen(function*() {
    const { dataRoot, target } = options
    yield* existingDirectory(dataRoot, "data_root_missing", "the data root")
    if (!NodeFs.existsSync(controlDbPath(dataRoot))) {
      return yield* new BackupFailed({ code: "data_root_missing", message: `${dataRoot} holds no control database: it is not a data root` })
    }
    yield* prepareTarget(dataRoot, target)
    const startedAt = yield* nowTimestamp
    const directories = userDirectories(dataRoot)
    const users = directories.filter(isValidUserId)
    const control = yield* copyStore(controlDbPath(dataRoot), controlCopy(target), "control")
    const entries: Array<Manifest["users"][number]> = []
    const erased: Array<string> = []
    for (const [done, userId] of users.entries()) {
      yield* options.onProgress({ done, total: users.length, current: userId })
      const source = storeFilePath(dataRoot, userId)
      if (!NodeFs.existsSync(source)) {
        erased.push(userId)
        continue
      }
      entries.push({ user_id: userId, ...(yield* copyStore(source, userCopy(target, userId), "user")) })
    }
    yield* options.onProgress({ done: users.length, total: users.length, current: null })
    yield* writeManifest(target, {
      format: "memory-service-backup",
      format_version: 1,
      service_version: SERVICE_VERSION,
      source: NodePath.resolve(dataRoot),
      started_at: startedAt,
      finished_at: yield* nowTimestamp,
      control,
      users: entries
    })
    return {
      target,
      users: entries.length,
      bytes: entries.reduce((sum, entry) => sum + entry.bytes, control.bytes),
      erased,
      ignored: directories.filter((name) => !isValidUserId(name))
    } satisfies BackupSummary
  })
