import { McpServer } from "@effect/ai"
import { NodeSink, NodeStream } from "@effect/platform-node"
import { Effect, Layer, Logger, LogLevel, Option } from "effect"
import { SERVICE_VERSION } from "../version.js"
import { ToolDefaults } from "./backend.js"
import { clientBackendLayer } from "./clientBackend.js"
import { loadMcpSettings, MCP_SERVER_NAME } from "./config.js"
import { toolsLayer } from "./handlers.js"

/** stdout carries the protocol, so every log line goes to stderr, and only at the chosen level. */
const stderrLogging = (level: LogLevel.LogLevel) =>
  Layer.merge(Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger)), Logger.minimumLogLevel(level))

/**
 * The MCP server over stdio, a client of the running service: SERVICE_API_URL, SERVICE_API_KEY,
 * SERVICE_USER_ID, SERVICE_PROJECT_ID, SERVICE_MCP_ALLOW_WRITE, SERVICE_MCP_LOG_LEVEL.
 */
export const runMcpStdio: Effect.Effect<void> = Effect.gen(function*() {
  const settings = yield* loadMcpSettings
  const server = toolsLayer(settings.allowWrite).pipe(
    Layer.provide(clientBackendLayer(settings)),
    Layer.provide(Layer.succeed(ToolDefaults, {
      userId: Option.getOrUndefined(settings.userId),
      projectId: Option.getOrUndefined(settings.projectId)
    })),
    Layer.provide(McpServer.layerStdio({ name: MCP_SERVER_NAME, version: SERVICE_VERSION, stdin: NodeStream.stdin, stdout: NodeSink.stdout }))
  )
  return yield* Effect.logInfo("MCP server on stdio", { api_url: settings.apiUrl, allow_write: settings.allowWrite }).pipe(
    Effect.zipRight(Layer.launch(server)),
    Effect.provide(stderrLogging(settings.logLevel))
  )
}).pipe(
  // Until the settings are read (and for a failure reading them) the default level applies, still on stderr.
  Effect.provide(stderrLogging(LogLevel.Warning))
)
