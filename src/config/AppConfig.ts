import { Context, Effect, Layer, Option, type Redacted } from "effect"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { configInvalid } from "../startup/StartupError.js"
import { boolVar, choiceVar, databaseUrlVar, intVar, optionalStringVar, originsVar, secretVar, stringVar } from "./variables.js"
import { webhookSettings, type WebhookSettings, type WebhookSwitch, webhookSwitchSetting } from "./webhooks.js"

export const LLM_PROVIDERS = ["openai", "anthropic", "gemini", "ollama"] as const
export type LlmProviderName = (typeof LLM_PROVIDERS)[number]

/** Embedding providers: the LLM providers' endpoints, or a model run in this process. */
export const EMBED_PROVIDERS = [...LLM_PROVIDERS, "local"] as const
export type EmbedProviderName = (typeof EMBED_PROVIDERS)[number]

/** The model hub `models pull` downloads from. */
export const DEFAULT_HUB_URL = "https://huggingface.co"

export const LOG_LEVELS = ["debug", "info", "warning", "error"] as const
export type LogLevelName = (typeof LOG_LEVELS)[number]

export interface Settings {
  readonly apiKey: Option.Option<Redacted.Redacted>
  readonly authDisabled: boolean
  readonly dataRoot: string
  readonly storeCacheMax: number
  /** The PostgreSQL database holding users' data and the control plane; none for the embedded SQLite under dataRoot. */
  readonly database: Option.Option<{ readonly url: Redacted.Redacted; readonly poolMax: number; readonly prepare: boolean }>
  readonly allowPurge: boolean
  readonly requestLogMax: number
  /** How long a request-log row waits in memory before it is written with the others of that time (docs/performance.md). */
  readonly requestLogFlushMs: number
  readonly jobRetentionMax: number
  /** How long a running job stays its worker's without word from it; then any worker may resume it. */
  readonly jobLeaseMs: number
  readonly maxBodyBytes: number
  /** Largest body of a user's import (`POST /v1/import`), which is streamed to a file rather than held. */
  readonly maxImportBytes: number
  /** Time a client has to send a whole request (headers and body); a slower one is cut off. */
  readonly requestTimeoutMs: number
  readonly host: string
  readonly port: number
  readonly corsOrigins: ReadonlyArray<string>
  readonly logLevel: LogLevelName
  readonly llm: {
    readonly provider: LlmProviderName
    readonly model: Option.Option<string>
    readonly apiKey: Option.Option<Redacted.Redacted>
    readonly baseUrl: Option.Option<string>
    /** One provider call's limit, each attempt on its own. */
    readonly timeoutMs: number
    /** Further attempts after a 429, a 5xx, a timeout or a malformed reply. */
    readonly maxRetries: number
    /** Sessions of one batch sent to the provider at once; also how many jobs run at once (at least 4). */
    readonly concurrency: number
  }
  readonly embed: {
    readonly provider: Option.Option<EmbedProviderName>
    readonly model: Option.Option<string>
    readonly dimensions: Option.Option<number>
    /** For an embedding provider other than the LLM's; the LLM's key and URL otherwise. */
    readonly apiKey: Option.Option<Redacted.Redacted>
    readonly baseUrl: Option.Option<string>
    /** The local provider's inference (see docs/local-embedding.md). */
    readonly local: LocalEmbedLimits
  }
  readonly mcp: { readonly allowWrite: boolean; readonly logLevel: string }
  /** Where memory changes are posted; none when SERVICE_WEBHOOK_URL is unset. */
  readonly webhook: Option.Option<WebhookSettings>
  /** What this process asks of the database's webhook setting (see WebhookSwitch). */
  readonly webhookSwitch: WebhookSwitch
  readonly apiUrl: string
}

export interface LocalEmbedLimits {
  /** Worker threads running the model, each with its own copy. */
  readonly threads: number
  readonly batchSize: number
  readonly queueMax: number
  readonly timeoutMs: number
  readonly hubUrl: string
}

const MIB = 1024 * 1024

/** One core is left to the event loop: requests keep being answered while every thread embeds. */
const defaultThreads = () => Math.min(Math.max(NodeOs.availableParallelism() - 1, 1), 8)

const localEmbedLimits = Effect.gen(function*() {
  return {
    threads: yield* intVar("SERVICE_EMBED_THREADS", defaultThreads(), { min: 1, max: 64 }),
    batchSize: yield* intVar("SERVICE_EMBED_BATCH", 32, { min: 1, max: 1024 }),
    queueMax: yield* intVar("SERVICE_EMBED_QUEUE_MAX", 4096, { min: 1, max: 1_000_000 }),
    timeoutMs: yield* intVar("SERVICE_EMBED_TIMEOUT_MS", 30_000, { min: 100, max: 600_000 }),
    hubUrl: (yield* stringVar("SERVICE_EMBED_HUB_URL", DEFAULT_HUB_URL)).replace(/\/+$/, "")
  } satisfies LocalEmbedLimits
})

const databaseSettings = Effect.gen(function*() {
  const url = yield* databaseUrlVar("SERVICE_DATABASE_URL")
  const poolMax = yield* intVar("SERVICE_DATABASE_POOL_MAX", 10, { min: 1, max: 1000 })
  const prepare = yield* boolVar("SERVICE_DATABASE_PREPARE", true)
  return Option.map(url, (value) => ({ url: value, poolMax, prepare }))
})

/** SERVICE_DATA_ROOT as an absolute path. */
export const dataRootSetting = Effect.map(stringVar("SERVICE_DATA_ROOT", "/data"), (dataRoot) => NodePath.resolve(dataRoot))

/** Reads and validates every SERVICE_* variable once; the first invalid one stops start-up. */
export const loadSettings = Effect.gen(function*() {
  const authDisabled = yield* boolVar("SERVICE_AUTH_DISABLED", false)
  const apiKey = yield* secretVar("SERVICE_API_KEY")
  if (!authDisabled && Option.isNone(apiKey)) {
    return yield* configInvalid("SERVICE_API_KEY", "is required while authentication is on (set it, or SERVICE_AUTH_DISABLED=true for local development)")
  }
  const webhook = yield* webhookSettings
  const embedProvider = yield* optionalStringVar("SERVICE_EMBED_PROVIDER").pipe(
    Effect.flatMap(Option.match({
      onNone: () => Effect.succeed(Option.none<EmbedProviderName>()),
      onSome: () => Effect.map(choiceVar("SERVICE_EMBED_PROVIDER", EMBED_PROVIDERS, "openai"), Option.some)
    }))
  )
  const embedDimensions = yield* optionalStringVar("SERVICE_EMBED_DIMENSIONS").pipe(
    Effect.flatMap(Option.match({
      onNone: () => Effect.succeed(Option.none<number>()),
      onSome: () => Effect.map(intVar("SERVICE_EMBED_DIMENSIONS", 0, { min: 1, max: 8192 }), Option.some)
    }))
  )
  const settings: Settings = {
    apiKey,
    authDisabled,
    dataRoot: yield* dataRootSetting,
    storeCacheMax: yield* intVar("SERVICE_STORE_CACHE_MAX", 64, { min: 1 }),
    database: yield* databaseSettings,
    allowPurge: yield* boolVar("SERVICE_ALLOW_PURGE", false),
    requestLogMax: yield* intVar("SERVICE_REQUEST_LOG_MAX", 10_000, { min: 0 }),
    requestLogFlushMs: yield* intVar("SERVICE_REQUEST_LOG_FLUSH_MS", 200, { min: 1, max: 60_000 }),
    jobRetentionMax: yield* intVar("SERVICE_JOB_RETENTION_MAX", 5_000, { min: 1 }),
    jobLeaseMs: 1000 * (yield* intVar("SERVICE_JOB_LEASE_SECONDS", 30, { min: 1, max: 3600 })),
    maxBodyBytes: yield* intVar("SERVICE_MAX_BODY_BYTES", 10 * MIB, { min: 1024 }),
    maxImportBytes: yield* intVar("SERVICE_MAX_IMPORT_BYTES", 1024 * MIB, { min: 1024 }),
    requestTimeoutMs: yield* intVar("SERVICE_REQUEST_TIMEOUT_MS", 30_000, { min: 500, max: 600_000 }),
    host: yield* stringVar("SERVICE_HOST", "0.0.0.0"),
    port: yield* intVar("SERVICE_PORT", 8000, { min: 0, max: 65535 }),
    corsOrigins: yield* originsVar("SERVICE_CORS_ORIGINS", !authDisabled),
    logLevel: yield* choiceVar("SERVICE_LOG_LEVEL", LOG_LEVELS, "info"),
    llm: {
      provider: yield* choiceVar("SERVICE_LLM_PROVIDER", LLM_PROVIDERS, "openai"),
      model: yield* optionalStringVar("SERVICE_LLM_MODEL"),
      apiKey: yield* secretVar("SERVICE_LLM_API_KEY"),
      baseUrl: yield* optionalStringVar("SERVICE_LLM_BASE_URL"),
      timeoutMs: yield* intVar("SERVICE_LLM_TIMEOUT_MS", 60_000, { min: 100, max: 600_000 }),
      maxRetries: yield* intVar("SERVICE_LLM_MAX_RETRIES", 2, { min: 0, max: 10 }),
      concurrency: yield* intVar("SERVICE_LLM_CONCURRENCY", 4, { min: 1, max: 64 })
    },
    embed: {
      provider: embedProvider,
      model: yield* optionalStringVar("SERVICE_EMBED_MODEL"),
      dimensions: embedDimensions,
      apiKey: yield* secretVar("SERVICE_EMBED_API_KEY"),
      baseUrl: yield* optionalStringVar("SERVICE_EMBED_BASE_URL"),
      local: yield* localEmbedLimits
    },
    mcp: {
      allowWrite: yield* boolVar("SERVICE_MCP_ALLOW_WRITE", false),
      logLevel: yield* stringVar("SERVICE_MCP_LOG_LEVEL", "WARNING")
    },
    webhook,
    webhookSwitch: yield* webhookSwitchSetting(webhook),
    apiUrl: yield* stringVar("SERVICE_API_URL", "http://127.0.0.1:8000")
  }
  return settings
})

export class AppConfig extends Context.Tag("Memory/AppConfig")<AppConfig, Settings>() {
  static readonly layer = Layer.effect(AppConfig, loadSettings)
}
