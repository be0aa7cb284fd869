import { Args, Command, Options } from "@effect/cli"
import { HttpClientRequest } from "@effect/platform"
import { Console, Effect, Schema } from "effect"
import { ImportResult } from "../../api/PortabilityApi.js"
import { CliFailure } from "../errors.js"
import { connection, json, optionalField, user } from "../options.js"
import { printAs } from "../output.js"
import { bodyToStdout, streamingCall } from "../streaming.js"

export const exportCommand = Command.make(
  "export",
  {
    ...connection,
    user,
    vectors: Options.boolean("vectors").pipe(Options.withDescription("Add each turn's and memory's vector (base64 float32)"))
  },
  ({ user, vectors, ...connection }) =>
    Effect.scoped(Effect.gen(function*() {
      const request = HttpClientRequest.get("/v1/export").pipe(HttpClientRequest.setUrlParams({ user_id: user, include_vectors: String(vectors) }))
      yield* bodyToStdout(yield* streamingCall(connection, request))
    }))
).pipe(Command.withDescription("Everything of one user's, as JSON Lines on stdout (docs/export.md)"))

export const importUserCommand = Command.make(
  "import-user",
  {
    ...connection,
    json,
    user: user.pipe(Options.optional, Options.withDescription("The user to load into (default: the export's own)")),
    file: Args.file({ name: "file", exists: "yes" }).pipe(Args.withDescription("An export of `memory-service export`"))
  },
  ({ file, json, user, ...connection }) =>
    Effect.scoped(Effect.gen(function*() {
      const body = yield* HttpClientRequest.post("/v1/import").pipe(
        HttpClientRequest.setUrlParams(optionalField("user_id", user)),
        HttpClientRequest.bodyFile(file, { contentType: "application/x-ndjson" }),
        Effect.mapError((error) => new CliFailure({ code: "invalid_input", message: `${file}: ${error.message}` }))
      )
      const response = yield* streamingCall(connection, body)
      const result = yield* Effect.mapError(
        Effect.flatMap(response.json, Schema.decodeUnknown(ImportResult)),
        (error) => new CliFailure({ code: "invalid_response", message: error.message })
      )
      yield* printAs(json, result, (loaded) => Console.log(`loaded ${file} into user ${loaded.user_id} (exported from ${loaded.source_user_id})`))
    }))
).pipe(Command.withDescription("Load an export into a user without data, on this or another deployment"))
