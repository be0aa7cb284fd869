import { FileSystem } from "@effect/platform"
import { Effect, Schema } from "effect"
import { CliFailure, invalidInput } from "./errors.js"

/** How far an import got: the next session to send and what happened to those before it. */
export const ImportState = Schema.Struct({
  file: Schema.String,
  user_id: Schema.String,
  next_index: Schema.Int,
  succeeded: Schema.Int,
  failed: Schema.Array(Schema.Struct({ index: Schema.Int, error: Schema.String }))
})
export type ImportState = typeof ImportState.Type

const decodeState = Schema.decodeUnknown(Schema.parseJson(ImportState))

export const loadState = (path: string, file: string, userId: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const fresh: ImportState = { file, user_id: userId, next_index: 0, succeeded: 0, failed: [] }
    if (!(yield* fs.exists(path).pipe(Effect.orElseSucceed(() => false)))) return fresh
    const state = yield* fs.readFileString(path).pipe(
      Effect.flatMap(decodeState),
      Effect.mapError(() => invalidInput(`${path} is not an import state file`))
    )
    // Resuming for another user would silently skip sessions that user never got.
    if (state.user_id !== userId) {
      return yield* Effect.fail(new CliFailure({ code: "state_mismatch", message: `${path} records an import for user ${state.user_id}` }))
    }
    return state
  })

/** Written to a temporary file then renamed, so an interrupted write never loses the state. */
export const saveState = (path: string, state: ImportState) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const temporary = `${path}.tmp`
    yield* fs.writeFileString(temporary, `${JSON.stringify(state)}\n`)
    yield* fs.rename(temporary, path)
  }).pipe(Effect.mapError((error) => new CliFailure({ code: "state_write_failed", message: `${path}: ${error.message}` })))
