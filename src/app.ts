import { Effect, Layer, Logger, LogLevel } from "effect"
import { AppConfig, type LogLevelName } from "./config/AppConfig.js"
import { HttpLive } from "./http/server.js"
import { LlmProvider } from "./llm/LlmProvider.js"
import { AdminViews } from "./services/AdminViews.js"
import { Answerer } from "./services/Answerer.js"
import { BatchIngest } from "./services/BatchIngest.js"
import { ApiKeys } from "./services/ApiKeys.js"
import { ContextBuilder } from "./services/ContextBuilder.js"
import { Embedder } from "./services/Embedder.js"
import { Graph } from "./services/Graph.js"
import { Maintenance } from "./services/Maintenance.js"
import { DataRootLockLive } from "./services/DataRootLockLive.js"
import { Ingest } from "./services/Ingest.js"
import { JobRunnerLive } from "./services/JobRunner.js"
import { MemoryReads } from "./services/MemoryReads.js"
import { LlmUsage } from "./services/LlmUsage.js"
import { MemoryWrites } from "./services/MemoryWrites.js"
import { Prometheus } from "./services/Prometheus.js"
import { RequestLog } from "./services/RequestLog.js"
import { RequestMetrics } from "./services/RequestMetrics.js"
import { Retrieval } from "./services/Retrieval.js"
import { Jobs } from "./services/Jobs.js"
import { StoreCache } from "./services/StoreCache.js"
import { TracingLive } from "./services/Tracing.js"
import { ControlDbLive } from "./store/control/ControlDb.js"

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

/** Lock first, then the control plane, then the services over it. */
const ControlPlaneLive = ControlDbLive.pipe(Layer.provideMerge(DataRootLockLive))

const ControlServicesLive = Layer.mergeAll(ApiKeys.Default, Jobs.Default, RequestLog.Default).pipe(
  Layer.provideMerge(ControlPlaneLive)
)

/** One usage counter for the process: every LLM call adds to it, /v1/usage and /metrics read it. */
const LlmLive = Embedder.Default.pipe(Layer.provideMerge(LlmProvider.Default), Layer.provideMerge(LlmUsage.Default))

const StoresLive = Layer.merge(StoreCache.Default, LlmLive)

const ObservabilityLive = Prometheus.Default.pipe(Layer.provideMerge(RequestMetrics.Default))

// Layers are built once per reference: the services below share one Ingest and one Retrieval.
const WritesLive = BatchIngest.Default.pipe(Layer.provideMerge(Ingest.Default))

const AnswerLive = Answerer.Default.pipe(Layer.provideMerge(Retrieval.Default))

const DomainLive = Layer.mergeAll(
  WritesLive,
  MemoryReads.Default,
  MemoryWrites.Default,
  AdminViews.Default,
  ContextBuilder.Default.pipe(Layer.provideMerge(Retrieval.Default)),
  Graph.Default.pipe(Layer.provide(Retrieval.Default)),
  AnswerLive,
  ObservabilityLive,
  Maintenance.Default,
  JobRunnerLive.pipe(Layer.provide(Layer.mergeAll(WritesLive, AnswerLive, Maintenance.Default)))
)

const ServicesLive = DomainLive.pipe(Layer.provideMerge(StoresLive), Layer.provideMerge(ControlServicesLive))

/** The whole server, from configuration to a listening socket. */
export const ServerLive = HttpLive.pipe(
  Layer.provide(AuthWarningLive),
  Layer.provide(ServicesLive),
  Layer.provide(TracingLive),
  Layer.provide(LoggingLive),
  Layer.provideMerge(AppConfig.layer)
)
