/**
 * The stack's floor server: an HttpApi on NodeHttpServer, started with Layer.launch as src/main.ts
 * starts the service, with none of the service's code. bench:startup times it from spawn to its
 * first 200 on GET /health; bench:mixed sends it searches (a body shaped like a search request
 * decoded, a small JSON body answered). Prints "Listening on http://…" like the service
 * (SERVICE_PORT, 0 for any free port).
 */
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, HttpServer } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Schema } from "effect"
import { createServer } from "node:http"

const SearchRequest = Schema.Struct({ user_id: Schema.String, query: Schema.String, limit: Schema.optional(Schema.Number) })
const SearchAnswer = Schema.Struct({ results: Schema.Array(Schema.Struct({ id: Schema.String, score: Schema.Number })) })

class FloorApi extends HttpApi.make("floor")
  .add(HttpApiGroup.make("health").add(HttpApiEndpoint.get("health", "/health").addSuccess(Schema.Struct({ status: Schema.String }))))
  .add(HttpApiGroup.make("retrieval").add(HttpApiEndpoint.post("search", "/v1/search").setPayload(SearchRequest).addSuccess(SearchAnswer)))
{}

const RetrievalLive = HttpApiBuilder.group(FloorApi, "retrieval", (handlers) =>
  handlers.handle("search", ({ payload }) => Effect.succeed({ results: [{ id: payload.user_id, score: payload.query.length }] })))

/** Serves the floor's two routes until interrupted; /health answers `status`. */
export const serveFloor = (status: string) => {
  const HealthLive = HttpApiBuilder.group(FloorApi, "health", (handlers) => handlers.handle("health", () => Effect.succeed({ status })))
  HttpApiBuilder.serve().pipe(
    Layer.provide(HttpApiBuilder.api(FloorApi).pipe(Layer.provide(Layer.merge(HealthLive, RetrievalLive)))),
    HttpServer.withLogAddress,
    Layer.provide(NodeHttpServer.layer(createServer, { port: Number(process.env.SERVICE_PORT ?? 0), host: "127.0.0.1" })),
    Layer.launch,
    NodeRuntime.runMain
  )
}
