import { Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { EmbedRequest, EmbedResult } from "../../api/MaintenanceApi.js"
import { call, clientFor } from "../client.js"
import { CliFailure } from "../errors.js"
import { request } from "../decode.js"
import { dataOptions, optionalField, optionalInteger } from "../options.js"
import { note, printAs, printRecord } from "../output.js"

/** Each call's soft deadline while --until-done repeats them, unless --max-seconds says otherwise. */
const ROUND_SECONDS = 10

export const embedCommand = Command.make(
  "embed",
  {
    ...dataOptions,
    user: Options.text("user").pipe(Options.withAlias("u"), Options.optional, Options.withDescription("The user id (default: every user)")),
    batchSize: optionalInteger("batch-size", "Rows per provider request and transaction (1-2048, default 64)"),
    maxSeconds: Options.float("max-seconds").pipe(Options.optional, Options.withDescription("Soft deadline of each call in seconds (0 = none)")),
    untilDone: Options.boolean("until-done").pipe(Options.withDescription(`Call again until nothing is left, a line of progress per call (each call ${ROUND_SECONDS} s unless --max-seconds)`)),
    async: Options.boolean("async").pipe(Options.withDescription("Start an embed job and print its id"))
  },
  ({ async, batchSize, json, maxSeconds, untilDone, user, ...connection }) =>
    Effect.gen(function*() {
      const payload = yield* request(EmbedRequest, {
        ...optionalField("user_id", user),
        ...optionalField("batch_size", batchSize),
        ...optionalField("max_processing_time_sec", untilDone ? Option.orElse(maxSeconds, () => Option.some(ROUND_SECONDS)) : maxSeconds),
        async_mode: async
      })
      const client = yield* clientFor(connection)
      const once = Effect.flatMap(call(client.maintenance.embed({ payload })), (answer) =>
        answer instanceof EmbedResult ? Effect.succeed(answer) : Effect.fail(new CliFailure({ code: "unexpected_answer", message: "expected the run's result, got a job" })))
      if (async) {
        const started = yield* call(client.maintenance.embed({ payload }))
        return yield* printAs(json, started, (a) => printRecord({ ...a }))
      }
      let result = yield* once
      let embedded = result.embedded
      while (untilDone && result.status === "ok" && result.remaining > 0 && result.embedded > 0) {
        yield* note(`embedded ${embedded}, ${result.remaining} left`)
        result = yield* once
        embedded += result.embedded
      }
      yield* printAs(json, { ...result, embedded }, (r) => printRecord(r))
    })
).pipe(Command.withDescription("Embed the facts and turns that lack a vector of the configured model (a user's, or every user's)"))
