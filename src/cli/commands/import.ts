import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { BATCH_MAX_SESSIONS, BatchAddRequest } from "../../api/MemoriesApi.js"
import { call, clientFor } from "../client.js"
import { request } from "../decode.js"
import { CliFailure } from "../errors.js"
import { type ImportState, loadState, saveState } from "../importState.js"
import { parseJsonOrLines, readText } from "../input.js"
import { userOptions } from "../options.js"
import { note, printJson } from "../output.js"

const options = {
  ...userOptions,
  file: Args.text({ name: "file" }).pipe(Args.withDescription("A JSON array or JSONL of {messages, session_id?, session_time?}")),
  batchSize: Options.integer("batch-size").pipe(Options.withDefault(100), Options.withDescription(`Sessions per request (1-${BATCH_MAX_SESSIONS})`)),
  noInfer: Options.boolean("no-infer").pipe(Options.withDescription("Store the turns verbatim (no LLM)")),
  state: Options.text("state").pipe(Options.optional, Options.withDescription("Progress file (default <file>.import-state.json)"))
}

const progress = (done: number, total: number) =>
  process.stderr.isTTY === true
    ? Effect.sync(() => process.stderr.write(`\rimported ${done}/${total}${done === total ? "\n" : ""}`))
    : note(`imported ${done}/${total}`)

const summary = (state: ImportState, skipped: number) =>
  [
    `succeeded ${state.succeeded}, failed ${state.failed.length}${skipped > 0 ? ` (resumed: ${skipped} already done)` : ""}`,
    ...state.failed.map((f) => `  session ${f.index}: ${f.error}`)
  ].join("\n")

export const importCommand = Command.make("import", options, (input) =>
  Effect.gen(function*() {
    if (input.batchSize < 1 || input.batchSize > BATCH_MAX_SESSIONS) {
      return yield* Effect.fail(new CliFailure({ code: "invalid_input", message: `--batch-size must be 1-${BATCH_MAX_SESSIONS}` }))
    }
    const sessions = yield* readText(input.file).pipe(Effect.flatMap((text) => parseJsonOrLines(text, input.file)))
    const statePath = Option.getOrElse(input.state, () => `${input.file}.import-state.json`)
    let state = yield* loadState(statePath, input.file, input.user)
    const skipped = state.next_index
    const client = yield* clientFor(input)
    if (skipped > 0) yield* note(`resuming at session ${skipped} of ${sessions.length} (${statePath})`)

    while (state.next_index < sessions.length) {
      const start = state.next_index
      const batch = sessions.slice(start, start + input.batchSize)
      const payload = yield* request(BatchAddRequest, { user_id: input.user, sessions: batch, infer: !input.noInfer, async_mode: false })
      const result = yield* call(client.memories.addBatch({ payload }))
      if ("job_id" in result) return yield* Effect.fail(new CliFailure({ code: "unexpected_answer", message: "the batch was queued as a job" }))
      state = {
        ...state,
        next_index: start + batch.length,
        succeeded: state.succeeded + result.succeeded,
        failed: [
          ...state.failed,
          ...result.results.filter((item) => !item.ok).map((item) => ({ index: start + item.index, error: item.error ?? "failed" }))
        ]
      }
      // Saved after every batch, so a rerun after a crash sends only what was not acknowledged.
      yield* saveState(statePath, state)
      yield* progress(state.next_index, sessions.length)
    }

    if (input.json) yield* printJson({ ...state, total: sessions.length, skipped })
    else yield* Console.log(summary(state, skipped))
    if (state.failed.length > 0) {
      return yield* Effect.fail(new CliFailure({ code: "import_incomplete", message: `${state.failed.length} session(s) failed` }))
    }
  })).pipe(Command.withDescription("Import sessions from a JSON or JSONL file, resumably"))
