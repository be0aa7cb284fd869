import { type HttpApp, HttpApp as App, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, FiberRef, HashMap, Option } from "effect"
import * as NodeCrypto from "node:crypto"
import { CurrentRequest, type RequestInfo } from "./currentRequest.js"
import { presentedKey } from "./authentication.js"
import type { CorsPolicy } from "./cors.js"
import { matchRoute } from "./routes.js"

const newRequestId = () => NodeCrypto.randomUUID().replaceAll("-", "").slice(0, 16)

/** A served request, as metrics and the request log see it. */
export interface ServedRequest {
  readonly requestId: string
  readonly method: string
  readonly path: string
  /** The route template (`/v1/jobs/{job_id}`), or the raw path when no route matched. */
  readonly route: string
  readonly status: number
  readonly latencyMs: number
  readonly keyName: string | null
  readonly keyId: string | null
}

/**
 * Outermost layer of every request: the request id (the incoming X-Request-ID echoed, else a
 * new one) in every log line and response, the response time, the Bearer challenge on a 401
 * without credentials, and CORS headers for allowed origins. Headers are added just before the
 * response is sent, so they reach responses rendered by any layer below.
 *
 * The request is handed to `served` (metrics, request log) at that same moment, before the
 * response leaves: a client that has its answer finds the request in the log, whichever replica
 * it asks next. Its latency is measured up to there, as the X-Response-Time-Ms header says; the
 * time `served` takes is not counted, and its failure never reaches the client.
 */
export const requestContext = (options: {
  readonly cors: CorsPolicy
  readonly served: (request: ServedRequest) => Effect.Effect<void>
}) => (app: HttpApp.Default): HttpApp.Default =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const requestId = Option.getOrElse(Option.fromNullable(request.headers["x-request-id"]), newRequestId)
    const info: RequestInfo = { id: requestId, keyName: null, keyId: null }
    const started = performance.now()
    // A response that fails to go out is followed by the error's own: the request is served once.
    let recorded = false
    const record = (status: number, latencyMs: number) => {
      if (recorded) return Effect.void
      recorded = true
      const path = new URL(request.url, "http://localhost").pathname
      return options.served({
        requestId,
        method: request.method,
        path,
        route: matchRoute(request.method, path)?.route.template ?? path,
        status,
        latencyMs,
        keyName: info.keyName,
        keyId: info.keyId
      }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("request could not be recorded", cause)))
    }
    yield* App.appendPreResponseHandler((_, response) => {
      const latencyMs = performance.now() - started
      return Effect.as(
        record(response.status, latencyMs),
        HttpServerResponse.setHeaders(response, {
          ...options.cors.responseHeaders(request),
          ...(response.status === 401 && Option.isNone(presentedKey(request.headers)) ? { "www-authenticate": "Bearer" } : {}),
          "x-request-id": requestId,
          "x-response-time-ms": latencyMs.toFixed(1)
        })
      )
    })
    // Set for the rest of the request's own fiber (each request runs in one, as the pre-response
    // handler above counts on too), not for a scope opened and closed around it as `locally` would.
    yield* FiberRef.set(CurrentRequest, info)
    yield* FiberRef.update(FiberRef.currentLogAnnotations, HashMap.set<string, unknown>("request_id", requestId))
    return yield* app
  })
