import { Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { DreamRequest } from "../../api/MaintenanceApi.js"
import { withClient } from "../client.js"
import { request } from "../decode.js"
import { optionalField, optionalInteger, userOptions } from "../options.js"
import { printAs, printRecord } from "../output.js"

export const dreamCommand = Command.make(
  "dream",
  {
    ...userOptions,
    batchSize: optionalInteger("batch-size", "Entities per call (1-1000, default 50)"),
    maxSeconds: Options.float("max-seconds").pipe(Options.optional, Options.withDescription("Soft deadline in seconds (0 = none)"))
  },
  ({ batchSize, json, maxSeconds, user, ...connection }) =>
    Effect.gen(function*() {
      const payload = yield* request(DreamRequest, {
        user_id: user,
        ...optionalField("batch_size", batchSize),
        ...optionalField("max_processing_time_sec", maxSeconds)
      })
      const result = yield* withClient(connection, "maintenance", (client) => client.dream({ payload }))
      yield* printAs(json, result, (r) => printRecord({ ...r }))
    })
).pipe(Command.withDescription("Rebuild the profiles of a user's stale entities"))
