import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { MemoryApi } from "../../api/Api.js"
import { RouteMetrics, UsageReport } from "../../api/ObservabilityApi.js"
import { LlmUsage } from "../../llm/LlmUsage.js"
import { Prometheus } from "../../services/observability/Prometheus.js"
import { RequestMetrics } from "../../services/observability/RequestMetrics.js"

export const ObservabilityLive = HttpApiBuilder.group(MemoryApi, "observability", (handlers) =>
  Effect.gen(function*() {
    const metrics = yield* RequestMetrics
    const prometheus = yield* Prometheus
    const usage = yield* LlmUsage
    return handlers
      .handle("metrics", () => Effect.map(metrics.latencies, (routes) => new RouteMetrics({ routes })))
      .handle("usage", () =>
        Effect.map(usage.snapshot, ({ byOperation, total }) =>
          new UsageReport({ by_operation: Object.fromEntries(byOperation), total: total.calls === 0 ? {} : total })))
      .handle("prometheus", () => prometheus.exposition)
  }))
