import { Effect, Layer, Logger, LogLevel, Option } from "effect"
import { AppConfig, type LogLevelName } from "./config/AppConfig.js"
import { HttpLive } from "./http/server.js"
import { LlmProvider } from "./llm/LlmProvider.js"
import { AdminViews } from "./services/admin/AdminViews.js"
import { Answerer } from "./services/recall/Answerer.js"
import { BatchIngest } from "./services/ingest/BatchIngest.js"
import { ApiKeys } from "./services/admin/ApiKeys.js"
import { ContextBuilder } from "./services/recall/ContextBuilder.js"
import { Embedder } from "./llm/Embedder.js"
import { Graph } from "./services/graph/Graph.js"
import { Maintenance } from "./services/maintenance/Maintenance.js"
import { Reembedding } from "./services/maintenance/Reembedding.js"
import { Ingest } from "./services/ingest/Ingest.js"
import { JobRunnerLive } from "./services/jobs/JobRunner.js"
import { MemoryReads } from "./services/memories/MemoryReads.js"
import { UserExport } from "./services/portability/UserExport.js"
import { UserImport } from "./services/portability/UserImport.js"
import { LlmUsage } from "./llm/LlmUsage.js"
import { MemoryWrites } from "./services/memories/MemoryWrites.js"
import { Prometheus } from "./services/observability/Prometheus.js"
import { RequestLog } from "./services/admin/RequestLog.js"
import { RequestMetrics } from "./services/observability/RequestMetrics.js"
import { Retrieval } from "./services/recall/Retrieval.js"
import { Jobs } from "./services/jobs/Jobs.js"
import { TracingLive } from "./services/observability/Tracing.js"
import { SqliteStorageLive } from "./storage/sqlite/SqliteStorage.js"
import { PortAvailableLive } from "./startup/portAvailable.js"
import { moduleUnavailable } from "./startup/StartupError.js"
import { lazyModule } from "./util/lazyModule.js"
import { WebhookCounters } from "./services/webhooks/WebhookCounters.js"
import { Webhooks } from "./services/webhooks/Webhooks.js"

const LOG_LEVELS: Record<LogLevelName, LogLevel.LogLevel> = {
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warning: LogLevel.Warning,
  error: LogLevel.Error
}

/** Structured JSON log lines at the configured level. */
const LoggingLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    Layer.merge(Logger.json, Logger.minimumLogLevel(LOG_LEVELS[config.logLevel])))
)

const AuthWarningLive = Layer.effectDiscard(
  Effect.flatMap(AppConfig, (config) =>
    config.authDisabled
      ? Effect.logWarning("authentication is DISABLED (SERVICE_AUTH_DISABLED=true): every caller has full access; never expose this instance")
      : Effect.void)
)

/** The PostgreSQL backend and its driver, loaded only when the configuration names a database. */
const postgresBackend = lazyModule("PostgreSQL storage", () => import("./storage/postgres/PostgresStorage.js"))

/** The storage backend behind both ports: PostgreSQL when SERVICE_DATABASE_URL is set, else the embedded SQLite under SERVICE_DATA_ROOT. */
const StorageLive = Layer.unwrapEffect(
  Effect.flatMap(AppConfig, (config) =>
    Option.match(config.database, {
      onNone: () => Effect.succeed(SqliteStorageLive),
      onSome: (database) =>
        postgresBackend.pipe(
          Effect.map(({ postgresStorage }) => postgresStorage({ ...database, webhookSwitch: config.webhookSwitch })),
          Effect.mapError(moduleUnavailable)
        )
    }))
)

const ControlServicesLive = Layer.mergeAll(ApiKeys.Default, Jobs.Default, RequestLog.Default).pipe(
  Layer.provideMerge(StorageLive)
)

/** The webhook dispatcher, and its counters that /metrics and the admin views read. */
const WebhooksLive = Webhooks.Default.pipe(Layer.provideMerge(WebhookCounters.Default))

/** One usage counter for the process: every LLM call adds to it, /v1/usage and /metrics read it. */
const LlmLive = Embedder.Default.pipe(Layer.provideMerge(LlmProvider.Default), Layer.provideMerge(LlmUsage.Default))


const ObservabilityLive = Prometheus.Default.pipe(Layer.provideMerge(RequestMetrics.Default))

// Layers are built once per reference: the services below share one Ingest and one Retrieval.
const WritesLive = BatchIngest.Default.pipe(Layer.provideMerge(Ingest.Default))

const AnswerLive = Answerer.Default.pipe(Layer.provideMerge(Retrieval.Default))

const DomainLive = Layer.mergeAll(
  WritesLive,
  MemoryReads.Default,
  UserExport.Default,
  UserImport.Default,
  MemoryWrites.Default,
  AdminViews.Default,
  ContextBuilder.Default.pipe(Layer.provideMerge(Retrieval.Default)),
  Graph.Default.pipe(Layer.provide(Retrieval.Default)),
  AnswerLive,
  ObservabilityLive,
  Maintenance.Default,
  Reembedding.Default,
  JobRunnerLive.pipe(Layer.provide(Layer.mergeAll(WritesLive, AnswerLive, Maintenance.Default, Reembedding.Default)))
)

const ServicesLive = DomainLive.pipe(Layer.provideMerge(WebhooksLive), Layer.provideMerge(LlmLive), Layer.provideMerge(ControlServicesLive))

/** The whole server, from configuration to a listening socket. */
export const ServerLive = HttpLive.pipe(
  Layer.provide(AuthWarningLive),
  Layer.provide(ServicesLive),
  // Before the storage is opened: a start refused for its port leaves nothing behind.
  Layer.provide(PortAvailableLive),
  Layer.provide(TracingLive),
  Layer.provide(LoggingLive),
  Layer.provideMerge(AppConfig.layer)
)
