import { Effect, Either, ParseResult, Schema } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { isValidUserId } from "../../../domain/userId.js"
import { controlDbPath } from "../control/ControlDb.js"
import { storeFilePath } from "../storeFile.js"
import { BackupFailed } from "./errors.js"
import { fileFailure } from "./fileFailure.js"
import { syncPath } from "./files.js"

export const MANIFEST_FILE = "manifest.json"

/** One copied store as it was written: enough to tell that a copy is whole and is the one made. */
export const StoreEntry = Schema.Struct({
  schema_version: Schema.NonNegativeInt,
  rows: Schema.Record({ key: Schema.String, value: Schema.NonNegativeInt }),
  bytes: Schema.NonNegativeInt,
  sha256: Schema.String.pipe(Schema.pattern(/^[0-9a-f]{64}$/)),
  copied_at: Schema.String
})
export type StoreEntry = typeof StoreEntry.Type

/** A user's store: its directory is the user's id, so only the allowlist's ids are accepted. */
export const UserEntry = Schema.Struct({
  user_id: Schema.String.pipe(Schema.filter(isValidUserId, { message: () => "not a valid user_id" })),
  ...StoreEntry.fields
})
export type UserEntry = typeof UserEntry.Type

/**
 * What a backup holds, written last: a backup without it was cut short. The copies sit where a
 * data root keeps them (`.control/service_control.db`, `<user_id>/store.db`).
 */
export const Manifest = Schema.Struct({
  format: Schema.Literal("memory-service-backup"),
  format_version: Schema.Literal(1),
  service_version: Schema.String,
  source: Schema.String,
  started_at: Schema.String,
  finished_at: Schema.String,
  control: StoreEntry,
  users: Schema.Array(UserEntry)
})
export type Manifest = typeof Manifest.Type

/** Where a backup (or a data root) keeps the control database's copy and each user's. */
export const controlCopy = controlDbPath
export const userCopy = storeFilePath

const encode = Schema.encodeSync(Schema.parseJson(Manifest, { space: 2 }))
const decode = Schema.decodeUnknownEither(Schema.parseJson(Manifest))

/** Writes the manifest beside a temporary name, flushed, then renamed into place: it is there whole or not at all. */
export const writeManifest = (directory: string, manifest: Manifest) =>
  Effect.gen(function*() {
    const path = NodePath.join(directory, MANIFEST_FILE)
    const partial = `${path}.partial`
    yield* Effect.try({ try: () => NodeFs.writeFileSync(partial, encode(manifest)), catch: (cause) => fileFailure("writing the manifest", partial, cause) })
    yield* syncPath(partial)
    yield* Effect.try({ try: () => NodeFs.renameSync(partial, path), catch: (cause) => fileFailure("writing the manifest", path, cause) })
    yield* syncPath(directory)
  })

/** A backup's manifest; a backup without one was cut short (or is not a backup). */
export const readManifest = (directory: string) =>
  Effect.gen(function*() {
    const path = NodePath.join(directory, MANIFEST_FILE)
    if (!NodeFs.existsSync(path)) {
      return yield* new BackupFailed({
        code: "backup_incomplete",
        message: `${directory} has no ${MANIFEST_FILE}: the backup was cut short (or this is not a backup); take a new one`
      })
    }
    const text = yield* Effect.try({ try: () => NodeFs.readFileSync(path, "utf8"), catch: (cause) => fileFailure("reading the manifest", path, cause) })
    return yield* Either.match(decode(text), {
      onLeft: (error) =>
        Effect.fail(new BackupFailed({ code: "backup_manifest_invalid", message: `${path} is not a valid manifest: ${ParseResult.TreeFormatter.formatErrorSync(error)}` })),
      onRight: Effect.succeed
    })
  })
