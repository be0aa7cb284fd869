import { FetchHttpClient, HttpClient, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { Effect, Option, Redacted, Schema, Stream } from "effect"
import type { Connection } from "./client.js"
import { CliFailure, fromClientError } from "./errors.js"

const ErrorEnvelope = Schema.Struct({ code: Schema.String, message: Schema.String })

/**
 * Sends a request whose body or answer is a stream, which the derived client would hold whole:
 * a successful answer is handed over unread, an error answer read as the contract's envelope.
 */
export const streamingCall = (connection: Connection, request: HttpClientRequest.HttpClientRequest) =>
  Effect.gen(function*() {
    const authorized = Option.match(connection.apiKey, {
      onNone: () => request,
      onSome: (key) => HttpClientRequest.bearerToken(request, Redacted.value(key))
    })
    const client = yield* HttpClient.HttpClient
    const response = yield* Effect.mapError(client.execute(HttpClientRequest.prependUrl(authorized, connection.apiUrl)), fromClientError)
    if (response.status < 400) return response
    const envelope = yield* Effect.option(Effect.flatMap(response.json, Schema.decodeUnknown(ErrorEnvelope)))
    return yield* Option.match(envelope, {
      onNone: () => new CliFailure({ code: "http_error", message: `unexpected answer ${response.status} from ${request.method} ${request.url}` }),
      onSome: ({ code, message }) => new CliFailure({ code, message })
    })
  }).pipe(Effect.provide(FetchHttpClient.layer))

/** Writes an answer's body to stdout as it arrives, at the pace stdout takes it. */
export const bodyToStdout = (response: HttpClientResponse.HttpClientResponse) =>
  Stream.runForEach(Stream.mapError(response.stream, fromClientError), (chunk) =>
    Effect.async<void>((resume) => {
      process.stdout.write(chunk, () => resume(Effect.void))
    }))
