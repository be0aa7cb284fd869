/**
 * The floor of a server on the service's own stack: one HttpApi with one GET endpoint answering
 * 200, served by HttpApiBuilder over NodeHttpServer and started with Layer.launch, as
 * src/main.ts starts the service. scripts/bench/startup.ts bundles it with the service's esbuild
 * settings and times it from spawn to its first 200, beside a bare node:http server.
 */
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Schema } from "effect"
import { createServer } from "node:http"

const FloorApi = HttpApi.make("floor").add(
  HttpApiGroup.make("health").add(HttpApiEndpoint.get("health", "/health").addSuccess(Schema.Struct({ status: Schema.String })))
)

const HealthLive = HttpApiBuilder.group(FloorApi, "health", (handlers) => handlers.handle("health", () => Effect.succeed({ status: "ok" })))

const ServerLive = HttpApiBuilder.serve().pipe(
  Layer.provide(HttpApiBuilder.api(FloorApi).pipe(Layer.provide(HealthLive))),
  Layer.provide(NodeHttpServer.layer(createServer, { port: Number(process.env.PORT), host: "127.0.0.1" }))
)

Layer.launch(ServerLive).pipe(NodeRuntime.runMain)
