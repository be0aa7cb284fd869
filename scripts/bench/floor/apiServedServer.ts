/**
 * The stack's floor with the service's whole API served: the API definition (src/api/Api.ts) built
 * by HttpApiBuilder as the server builds it, every endpoint's decoders, encoder and route and both
 * middlewares included, behind handlers that do nothing (each dies) but /health's. None of the
 * service's stores, services, edge or console exist. bench:startup sets it beside the server: what
 * the stack takes to serve the API the specification asks for, before any work of the service's.
 */
import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"
import { MemoryApi } from "../../../src/api/Api.js"
import { Authentication } from "../../../src/api/Authentication.js"
import { Health } from "../../../src/api/HealthApi.js"
import { ScopeKeysInQuery } from "../../../src/api/ScopeKeysInQuery.js"

const nothing = () => Effect.die("this floor serves no route but /health")

const health = new Health({ status: "ok", version: "floor", schema_version: 0, auth: "enabled" })

const GroupsLive = Layer.mergeAll(
  HttpApiBuilder.group(MemoryApi, "health", (handlers) => handlers.handle("health", () => Effect.succeed(health))),
  HttpApiBuilder.group(MemoryApi, "memories", (handlers) =>
    handlers.handle("add", nothing).handle("addBatch", nothing).handle("list", nothing).handle("get", nothing)
      .handle("update", nothing).handle("delete", nothing).handle("deleteUser", nothing)),
  HttpApiBuilder.group(MemoryApi, "retrieval", (handlers) =>
    handlers.handle("search", nothing).handle("contextGet", nothing).handle("context", nothing)),
  HttpApiBuilder.group(MemoryApi, "graph", (handlers) =>
    handlers.handle("entityTimeline", nothing).handle("explore", nothing).handle("refine", nothing)),
  HttpApiBuilder.group(MemoryApi, "maintenance", (handlers) => handlers.handle("dream", nothing).handle("embed", nothing)),
  HttpApiBuilder.group(MemoryApi, "answer", (handlers) => handlers.handle("answer", nothing)),
  HttpApiBuilder.group(MemoryApi, "events", (handlers) => handlers.handle("list", nothing)),
  HttpApiBuilder.group(MemoryApi, "jobs", (handlers) => handlers.handle("getJob", nothing)),
  HttpApiBuilder.group(MemoryApi, "observability", (handlers) =>
    handlers.handle("metrics", nothing).handle("usage", nothing).handle("prometheus", nothing)),
  HttpApiBuilder.group(MemoryApi, "admin", (handlers) =>
    handlers.handle("config", nothing).handle("listKeys", nothing).handle("createKey", nothing)
      .handle("revokeKey", nothing).handle("requests", nothing).handle("stats", nothing)),
  HttpApiBuilder.group(MemoryApi, "portability", (handlers) => handlers.handle("exportUser", nothing).handle("importUser", nothing))
)

const MiddlewareLive = Layer.merge(
  Layer.succeed(Authentication, { bearer: () => Effect.succeed({ name: "floor", keyId: null }), apiKey: () => Effect.succeed({ name: "floor", keyId: null }) }),
  Layer.succeed(ScopeKeysInQuery, Effect.void)
)

HttpApiBuilder.serve().pipe(
  Layer.provide(HttpApiBuilder.api(MemoryApi).pipe(Layer.provide(GroupsLive), Layer.provide(MiddlewareLive))),
  HttpServer.withLogAddress,
  Layer.provide(NodeHttpServer.layer(createServer, { port: Number(process.env.SERVICE_PORT ?? 0), host: "127.0.0.1" })),
  Layer.launch,
  NodeRuntime.runMain
)
