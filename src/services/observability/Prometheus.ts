import { Effect } from "effect"
import { AppConfig } from "../../config/AppConfig.js"
import { Embedder } from "../../llm/Embedder.js"
import { LlmUsage } from "../../llm/LlmUsage.js"
import { RequestMetrics } from "./RequestMetrics.js"
import { UserStore } from "../../storage/UserStore.js"
import { lazyModule } from "../../util/lazyModule.js"
import { WebhookCounters } from "../webhooks/WebhookCounters.js"

/** prom-client and the metrics' registry: loaded with the first scrape. */
const registryModule = lazyModule("prom-client", () => import("./prometheusRegistry.js"))

/**
 * The Prometheus exposition: request counts, duration quantiles (seconds) over each route's
 * recent requests, cumulative LLM tokens by operation and kind, and the store cache. Each
 * metric has its HELP and TYPE even with no series; routes without traffic are absent.
 * The registry is made at the first scrape: a process never scraped does not load prom-client.
 */
export class Prometheus extends Effect.Service<Prometheus>()("Memory/Prometheus", {
  effect: Effect.gen(function*() {
    const sources = {
      requests: yield* RequestMetrics,
      usage: yield* LlmUsage,
      stores: yield* UserStore,
      storeCacheMax: (yield* AppConfig).storeCacheMax,
      webhooks: yield* WebhookCounters,
      embedder: yield* Embedder
    }
    // A module that cannot load is a broken installation: a fault, not an answer.
    const registry = yield* Effect.cached(registryModule.pipe(Effect.orDie, Effect.map(({ prometheusRegistry }) => prometheusRegistry(sources))))
    return {
      exposition: Effect.flatMap(registry, (made) => Effect.promise(() => made.metrics()))
    } as const
  })
}) {}
