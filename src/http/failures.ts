import { HttpServerError, HttpServerRequest } from "@effect/platform"
import { HttpApiDecodeError } from "@effect/platform/HttpApiError"
import { Cause, Effect } from "effect"
import { InternalError, isApiError } from "../api/errors.js"
import { errorResponse } from "./errorResponse.js"
import { fromDecodeError } from "./revalidation.js"
import { routingError } from "./routingErrors.js"
import { fromRequestError } from "./unreadableBodies.js"

const unexpected = (cause: Cause.Cause<unknown>) =>
  Effect.logError("unhandled failure", cause).pipe(
    Effect.as(errorResponse(new InternalError({ message: "internal error; the request id identifies it in the logs", details: {} })))
  )

/**
 * Every failure the contract does not declare becomes an envelope here: routing misses (404,
 * 405, 422 for an undecodable path parameter), schema failures (422), unreadable bodies
 * (413/422) and defects (500).
 * Declared errors pass through to the builder, which encodes them with their status.
 */
export const handleFailure = (maxBodyBytes: number) => (cause: Cause.Cause<unknown>) =>
  Effect.gen(function*() {
    // The app is typed as failing with nothing, yet declared errors do arrive here; handing the
    // cause back lets the builder encode them with their declared status.
    const passThrough = Effect.failCause(cause as Cause.Cause<never>)
    if (Cause.isInterruptedOnly(cause)) return yield* passThrough
    const squashed = Cause.squash(cause)
    if (isApiError(squashed)) return yield* passThrough
    const request = yield* HttpServerRequest.HttpServerRequest
    if (HttpServerError.isServerError(squashed)) {
      if (squashed._tag === "RouteNotFound") return yield* routingError(request)
      if (squashed._tag === "RequestError" && squashed.reason === "Decode") {
        return errorResponse(yield* fromRequestError(squashed, maxBodyBytes))
      }
    }
    if (squashed instanceof HttpApiDecodeError) return errorResponse(yield* fromDecodeError(squashed))
    return yield* unexpected(cause)
  })
