import { Config, Effect, LogLevel, Option, Redacted } from "effect"

/** The name the MCP server gives itself in `initialize`, over either transport. */
export const MCP_SERVER_NAME = "memory-service"

/** What the MCP server reads from its environment (§8.2, `SERVICE_` prefix). */
export interface McpSettings {
  readonly apiUrl: string
  readonly apiKey: Option.Option<Redacted.Redacted>
  readonly userId: Option.Option<string>
  readonly projectId: Option.Option<string>
  readonly allowWrite: boolean
  readonly logLevel: LogLevel.LogLevel
}

const TRUTHY = new Set(["1", "true", "yes", "on"])

/** Only the four words register the write tools; anything else (a typo included) keeps them off. */
export const isTruthy = (value: string) => TRUTHY.has(value.trim().toLowerCase())

const LEVELS: Record<string, LogLevel.LogLevel> = {
  DEBUG: LogLevel.Debug,
  INFO: LogLevel.Info,
  WARNING: LogLevel.Warning,
  WARN: LogLevel.Warning,
  ERROR: LogLevel.Error,
  CRITICAL: LogLevel.Fatal,
  NONE: LogLevel.None
}

/** Python-style level names as the reference documents them; an unknown name keeps the default. */
export const logLevelOf = (name: string): LogLevel.LogLevel => LEVELS[name.trim().toUpperCase()] ?? LogLevel.Warning

/** An unset or blank variable counts as absent. */
const present = (name: string) =>
  Config.option(Config.string(name)).pipe(Config.map(Option.filter((value) => value.trim() !== "")))

export const McpConfig: Config.Config<McpSettings> = Config.all({
  apiUrl: Config.map(present("SERVICE_API_URL"), Option.getOrElse(() => "http://127.0.0.1:8000")),
  apiKey: Config.map(present("SERVICE_API_KEY"), Option.map(Redacted.make)),
  userId: present("SERVICE_USER_ID"),
  projectId: present("SERVICE_PROJECT_ID"),
  allowWrite: Config.map(present("SERVICE_MCP_ALLOW_WRITE"), Option.match({ onNone: () => false, onSome: isTruthy })),
  logLevel: Config.map(present("SERVICE_MCP_LOG_LEVEL"), Option.match({ onNone: () => LogLevel.Warning, onSome: logLevelOf }))
})

export const loadMcpSettings = Effect.orDie(McpConfig)
