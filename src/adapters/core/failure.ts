import { HttpClientError } from "@effect/platform"
import { Cause, Data, Duration, Effect, Either, ParseResult } from "effect"
import { ERROR_CATALOGUE, isApiError } from "../../api/errors.js"
import type { MemoryClient } from "./client.js"

/** Why a call to the memory service did not answer, in the service's stable codes. */
export class MemoryFailure extends Data.TaggedError("MemoryFailure")<{ readonly code: string; readonly message: string }> {
  get line() {
    return `${this.code}: ${this.message}`
  }
}

const MESSAGE_CHARS = 200

const failureOf = (baseUrl: string, error: unknown): MemoryFailure => {
  if (error instanceof MemoryFailure) return error
  if (isApiError(error)) return new MemoryFailure({ code: ERROR_CATALOGUE[error._tag].code, message: error.message.slice(0, MESSAGE_CHARS) })
  if (HttpClientError.isHttpClientError(error)) {
    return error._tag === "ResponseError"
      ? new MemoryFailure({ code: `http_${error.response.status}`, message: `unexpected answer from ${baseUrl}` })
      : new MemoryFailure({ code: "unreachable", message: `cannot reach ${baseUrl}` })
  }
  if (ParseResult.isParseError(error)) return new MemoryFailure({ code: "invalid_response", message: error.message.slice(0, MESSAGE_CHARS) })
  return new MemoryFailure({ code: "internal_error", message: String(error).slice(0, MESSAGE_CHARS) })
}

/**
 * Runs one call of the typed client within `timeoutMs` (interrupting it, which aborts the
 * request, when it takes longer) and settles with its value or a MemoryFailure: never rejects.
 */
export const attempt = <A, E>(client: MemoryClient, call: Effect.Effect<A, E>, timeoutMs = client.timeoutMs): Promise<Either.Either<A, MemoryFailure>> =>
  Effect.runPromise(
    call.pipe(
      Effect.timeoutFail({
        duration: Duration.millis(timeoutMs),
        onTimeout: () => new MemoryFailure({ code: "timeout", message: `no answer from ${client.baseUrl} in ${timeoutMs} ms` })
      }),
      Effect.catchAllCause((cause) => Effect.fail(failureOf(client.baseUrl, Cause.squash(cause)))),
      Effect.either
    )
  )
