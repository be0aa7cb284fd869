import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"
import { MemoryApi } from "../api/Api.js"
import { errorEnvelope, ServiceUnavailable } from "../api/errors.js"
import { AppConfig } from "../config/AppConfig.js"
import { AuthenticationLive } from "./authentication.js"
import { connectionErrorAnswers } from "./connectionErrors.js"
import { ConsoleLive } from "./console.js"
import { DocsLive } from "./docs.js"
import { corsPolicy } from "./cors.js"
import { edgeLayer } from "./edge.js"
import { AdminLive } from "./handlers/admin.js"
import { AnswerLive } from "./handlers/answer.js"
import { EventsLive } from "./handlers/events.js"
import { GraphLive } from "./handlers/graph.js"
import { MaintenanceLive } from "./handlers/maintenance.js"
import { HealthLive } from "./handlers/health.js"
import { JobsLive } from "./handlers/jobs.js"
import { MemoriesLive } from "./handlers/memories.js"
import { ObservabilityLive } from "./handlers/observability.js"
import { PortabilityLive } from "./handlers/portability.js"
import { RetrievalLive } from "./handlers/retrieval.js"
import { McpHttpLive } from "./mcp.js"
import { RequestLog } from "../services/admin/RequestLog.js"
import { RequestMetrics } from "../services/observability/RequestMetrics.js"
import { requestContext, type ServedRequest } from "./requestContext.js"
import { ScopeKeysInQueryLive } from "./scopeKeysInQuery.js"
import { tracesExported, untracedUnless } from "./untraced.js"

const SHUTTING_DOWN = JSON.stringify(errorEnvelope(new ServiceUnavailable({ message: "the service is shutting down; retry shortly", details: {} })))

/**
 * Node closes only the connections idle when shutdown begins; one that finishes its in-flight
 * response afterwards is closed at once too, so shutdown never waits out a keep-alive timeout.
 * At shutdown the service's own request handler is detached first: a request parsed after that
 * is answered 503 here instead of being left without an answer (and holding the exit). Errors
 * below HTTP are answered in the envelope too (connectionErrors.ts).
 */
export const makeNodeServer = (requestTimeoutMs = 30_000) => {
  // A client trickling its request holds a connection and its buffered bytes: it gets the
  // timeout's time in all, checked often enough that the limit is what it says.
  const server = createServer({
    requestTimeout: requestTimeoutMs,
    headersTimeout: requestTimeoutMs,
    connectionsCheckingInterval: Math.min(1_000, requestTimeoutMs / 2)
  })
  const connectionErrors = connectionErrorAnswers()
  server.on("clientError", connectionErrors.answer)
  server.on("request", (request, response) => {
    connectionErrors.track(request.socket, response)
    response.on("finish", () => {
      if (!server.listening) setImmediate(() => server.closeIdleConnections())
    })
    if (server.listenerCount("request") === 1) {
      response.writeHead(503, { "content-type": "application/json", connection: "close" }).end(SHUTTING_DOWN)
    }
  })
  return server
}

const ApiLive = HttpApiBuilder.api(MemoryApi).pipe(
  Layer.provide([HealthLive, MemoriesLive, RetrievalLive, GraphLive, MaintenanceLive, AnswerLive, EventsLive, JobsLive, ObservabilityLive, AdminLive, PortabilityLive]),
  Layer.provide([AuthenticationLive, ScopeKeysInQueryLive])
)

/** The HTTP server: the API, /mcp, /docs, /openapi.json, /console, and the middleware around them. */
export const HttpLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const config = yield* AppConfig
    const metrics = yield* RequestMetrics
    const requestLog = yield* RequestLog
    const untraced = untracedUnless(yield* tracesExported)
    const cors = corsPolicy(config.corsOrigins)
    // Annotating a line costs a scope per request even when its level is off: only at debug.
    const logServed = (request: ServedRequest) =>
      config.logLevel !== "debug" ? Effect.void : Effect.logDebug("request served").pipe(Effect.annotateLogs({
        method: request.method,
        route: request.route,
        status: request.status,
        latency_ms: Math.round(request.latencyMs * 10) / 10,
        key_name: request.keyName
      }))
    const served = (request: ServedRequest) =>
      Effect.zipRight(
        Effect.zipRight(logServed(request), metrics.record(request.method, request.route, request.status, request.latencyMs)),
        requestLog.record({
          request_id: request.requestId,
          method: request.method,
          route: request.route,
          path: request.path,
          status_code: request.status,
          latency_ms: Math.round(request.latencyMs * 1000) / 1000,
          key_name: request.keyName,
          key_id: request.keyId
        })
      )
    return HttpApiBuilder.serve(requestContext({ cors, served })).pipe(
      // /docs and /openapi.json, each built on its first request.
      Layer.provide(DocsLive),
      // The web console's static build, on the same router so the edge and the request context apply.
      Layer.provide(ConsoleLive),
      Layer.provide(edgeLayer({ maxBodyBytes: config.maxBodyBytes, maxImportBytes: config.maxImportBytes, cors })),
      // MCP over streamable HTTP at /mcp, on the API's router, behind the same key check.
      Layer.provide(McpHttpLive.pipe(Layer.provide(AuthenticationLive))),
      Layer.provide(ApiLive),
      HttpServer.withLogAddress,
      Layer.provideMerge(NodeHttpServer.layer(() => makeNodeServer(config.requestTimeoutMs), { port: config.port, host: config.host })),
      untraced
    )
  })
)
