import { type HttpApp, HttpApp as App, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import * as NodeCrypto from "node:crypto"
import { CurrentRequestId } from "../services/AuditContext.js"
import { presentedKey } from "./authentication.js"
import type { CorsPolicy } from "./cors.js"

const newRequestId = () => NodeCrypto.randomUUID().replaceAll("-", "").slice(0, 16)

/**
 * Outermost layer of every request: the request id (the incoming X-Request-ID echoed, else a
 * new one) in every log line and response, the response time, the Bearer challenge on a 401
 * without credentials, and CORS headers for allowed origins. Headers are added just before the
 * response is sent, so they reach responses rendered by any layer below.
 */
export const requestContext = (cors: CorsPolicy) => (app: HttpApp.Default): HttpApp.Default =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const requestId = Option.getOrElse(Option.fromNullable(request.headers["x-request-id"]), newRequestId)
    const started = performance.now()
    yield* App.appendPreResponseHandler((_, response) =>
      Effect.succeed(HttpServerResponse.setHeaders(response, {
        ...cors.responseHeaders(request),
        ...(response.status === 401 && Option.isNone(presentedKey(request.headers)) ? { "www-authenticate": "Bearer" } : {}),
        "x-request-id": requestId,
        "x-response-time-ms": (performance.now() - started).toFixed(1)
      }))
    )
    return yield* app.pipe(Effect.annotateLogs({ request_id: requestId }), Effect.locally(CurrentRequestId, requestId))
  })
