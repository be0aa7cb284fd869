import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { MemoryApi } from "../../api/Api.js"
import { RouteMetrics } from "../../api/ObservabilityApi.js"
import { Prometheus } from "../../services/Prometheus.js"
import { RequestMetrics } from "../../services/RequestMetrics.js"

export const ObservabilityLive = HttpApiBuilder.group(MemoryApi, "observability", (handlers) =>
  Effect.gen(function*() {
    const metrics = yield* RequestMetrics
    const prometheus = yield* Prometheus
    return handlers
      .handle("metrics", () => Effect.map(metrics.latencies, (routes) => new RouteMetrics({ routes })))
      .handle("prometheus", () => prometheus.exposition)
  }))
