import { McpServer } from "@effect/ai"
import type { HttpApp } from "@effect/platform"
import { RpcSerialization, RpcServer } from "@effect/rpc"
import { Context, Effect, Layer, type Scope } from "effect"
import { AppConfig } from "../config/AppConfig.js"
import { SERVICE_VERSION } from "../version.js"
import { ToolDefaults } from "../mcp/backend.js"
import { MCP_SERVER_NAME } from "../mcp/config.js"
import { DomainBackendLive } from "../mcp/domainBackend.js"
import { toolsLayer } from "../mcp/handlers.js"

/** The MCP server's side of streamable HTTP: what POST /mcp hands a request to once its key is checked. */
class McpHttpApp extends Context.Tag("Memory/McpHttpApp")<McpHttpApp, HttpApp.Default<never, Scope.Scope>>() {}

/**
 * The RPC protocol, built by hand rather than with `McpServer.layerHttp` so that its route can sit
 * behind the same key check as the API (src/http/mcp.ts mounts it).
 */
const ProtocolLive = Layer.scopedContext(
  Effect.map(RpcServer.makeProtocolWithHttpApp, ({ httpApp, protocol }) =>
    Context.make(RpcServer.Protocol, protocol).pipe(Context.add(McpHttpApp, httpApp)))
).pipe(Layer.provide(RpcSerialization.layerJsonRpc()))

/**
 * The same tools as over stdio, calling the domain services in-process (no loopback HTTP and no
 * key of its own), with the write tools only when SERVICE_MCP_ALLOW_WRITE allows.
 */
const McpLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) => toolsLayer(config.mcp.allowWrite))
).pipe(
  Layer.provide(DomainBackendLive),
  // Inside the server the caller names the user; SERVICE_USER_ID is a client-side setting.
  Layer.provide(Layer.succeed(ToolDefaults, { userId: undefined, projectId: undefined })),
  Layer.provide(McpServer.layer({ name: MCP_SERVER_NAME, version: SERVICE_VERSION })),
  Layer.provideMerge(ProtocolLive)
)

/** The services the MCP server calls: the configuration and the domain services behind its tools. */
export type McpServices = Layer.Layer.Context<typeof McpLive>

/** The MCP server over `services`, running in `scope` (the HTTP server's), and its HTTP app. */
export const mcpApp = (services: Context.Context<McpServices>, scope: Scope.Scope) =>
  Layer.buildWithScope(McpLive.pipe(Layer.provide(Layer.succeedContext(services))), scope).pipe(
    Effect.map((built) => Context.get(built, McpHttpApp))
  )
