import { McpServer } from "@effect/ai"
import { HttpApiBuilder } from "@effect/platform"
import { RpcSerialization, RpcServer } from "@effect/rpc"
import { Effect, Layer, Redacted } from "effect"
import { Authentication } from "../api/Authentication.js"
import { MethodNotAllowed } from "../api/errors.js"
import { AppConfig } from "../config/AppConfig.js"
import { errorResponse } from "./errorResponse.js"
import { SERVICE_VERSION } from "../version.js"
import { ToolDefaults } from "../mcp/backend.js"
import { MCP_SERVER_NAME } from "../mcp/config.js"
import { DomainBackendLive } from "../mcp/domainBackend.js"
import { toolsLayer } from "../mcp/handlers.js"

export const MCP_PATH = "/mcp"

/**
 * MCP over streamable HTTP, mounted on the API's own router at /mcp so the edge (body limit,
 * error envelopes, request log) applies. The RPC protocol is built by hand rather than with
 * `McpServer.layerHttp` so that its route can sit behind the same key check as the API.
 */
const ProtocolLive = Layer.scoped(
  RpcServer.Protocol,
  Effect.gen(function*() {
    const router = yield* HttpApiBuilder.Router
    const authentication = yield* Authentication
    const { httpApp, protocol } = yield* RpcServer.makeProtocolWithHttpApp
    // The token argument is unused: the check reads the request's headers itself, as for the API.
    const guarded = authentication.bearer(Redacted.make("")).pipe(
      Effect.zipRight(httpApp),
      Effect.catchTag("Unauthorized", (error) => Effect.succeed(errorResponse(error)))
    )
    yield* router.post(MCP_PATH, guarded)
    // No server-initiated stream: a GET (or DELETE) is answered as the transport expects.
    const notAllowed = Effect.succeed(errorResponse(new MethodNotAllowed({ message: "Method Not Allowed", details: {} }), { allow: "POST" }))
    yield* router.get(MCP_PATH, notAllowed)
    yield* router.del(MCP_PATH, notAllowed)
    return protocol
  })
).pipe(Layer.provide([RpcSerialization.layerJsonRpc(), HttpApiBuilder.Router.Live]))

/**
 * The /mcp endpoint: the same tools as over stdio, calling the domain services in-process (no
 * loopback HTTP and no key of its own), with the write tools only when SERVICE_MCP_ALLOW_WRITE allows.
 */
export const McpHttpLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) => toolsLayer(config.mcp.allowWrite))
).pipe(
  Layer.provide(DomainBackendLive),
  // Inside the server the caller names the user; SERVICE_USER_ID is a client-side setting.
  Layer.provide(Layer.succeed(ToolDefaults, { userId: undefined, projectId: undefined })),
  Layer.provide(McpServer.layer({ name: MCP_SERVER_NAME, version: SERVICE_VERSION })),
  Layer.provide(ProtocolLive)
)

