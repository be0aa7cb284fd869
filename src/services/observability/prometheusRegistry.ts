import { type Context, Effect, Option } from "effect"
import { Registry } from "prom-client"
import type { Embedder } from "../../llm/Embedder.js"
import { countsOf } from "../../llm/usage.js"
import type { LlmUsage } from "../../llm/LlmUsage.js"
import { nearestRank, type RequestMetrics } from "./RequestMetrics.js"
import type { UserStore } from "../../storage/UserStore.js"
import type { WebhookCounters } from "../webhooks/WebhookCounters.js"

interface Sample {
  readonly labels: Record<string, string | number>
  readonly value: number
  readonly metricName?: string
}

type MetricType = "counter" | "gauge" | "summary"

/**
 * Registers a metric whose samples are read from the service's own state at scrape time.
 * prom-client formats any object with `get()`; its types only admit its own metric classes,
 * whose summaries compute their own quantiles rather than report ours.
 */
const register = (registry: Registry, name: string, help: string, type: MetricType, samples: () => Promise<ReadonlyArray<Sample>>) => {
  const metric = { name, help, type, aggregator: "sum", get: async () => ({ name, help, type, aggregator: "sum", values: await samples() }) }
  registry.registerMetric(metric as unknown as Parameters<Registry["registerMetric"]>[0])
}

/** What the exposition reads at scrape time: the service's own state. */
export interface MetricSources {
  readonly requests: Context.Tag.Service<typeof RequestMetrics>
  readonly usage: Context.Tag.Service<typeof LlmUsage>
  readonly stores: Context.Tag.Service<typeof UserStore>
  readonly storeCacheMax: number
  readonly webhooks: Context.Tag.Service<typeof WebhookCounters>
  readonly embedder: Context.Tag.Service<typeof Embedder>
}

/** The registry of every metric the exposition shows, each reading `sources` when scraped. */
export const prometheusRegistry = ({ requests, usage, stores, storeCacheMax, webhooks, embedder }: MetricSources): Registry => {
  const registry = new Registry()

  register(registry,
    "sodamem_http_requests_total",
    "Total HTTP requests served, by method, route template and status.",
    "counter",
    async () => (await Effect.runPromise(requests.requestCounts)).map((c) => ({ labels: { method: c.method, path: c.path, status: c.status }, value: c.count }))
  )

  register(registry,
    "sodamem_http_request_duration_seconds",
    "Request duration over this process's most recent samples per route (bounded ring).",
    "summary",
    async () => {
      const samples: Array<Sample> = []
      for (const [route, sorted] of await Effect.runPromise(requests.sortedSamples)) {
        for (const quantile of [0.5, 0.95, 0.99]) samples.push({ labels: { route, quantile }, value: Math.round(nearestRank(sorted, quantile) * 1000) / 1e6 })
        samples.push({ metricName: "sodamem_http_request_duration_seconds_count", labels: { route }, value: sorted.length })
      }
      return samples
    }
  )

  register(registry,
    "sodamem_llm_tokens_total",
    "Cumulative LLM tokens since process start, by operation and kind.",
    "counter",
    async () => {
      const samples: Array<Sample> = []
      const { byOperation } = await Effect.runPromise(usage.snapshot)
      for (const operation of [...byOperation.keys()].sort()) {
        for (const [kind, value] of Object.entries(countsOf(byOperation.get(operation)!)).sort(([a], [b]) => a.localeCompare(b))) {
          samples.push({ labels: { operation, kind }, value })
        }
      }
      return samples
    }
  )

  register(registry,
    "sodamem_store_cache_open",
    "Per-user stores open now.",
    "gauge",
    async () => [{ labels: {}, value: await Effect.runPromise(stores.openStores) }]
  )

  register(registry,
    "sodamem_store_cache_max",
    "Most idle per-user stores kept open (SERVICE_STORE_CACHE_MAX).",
    "gauge",
    async () => [{ labels: {}, value: storeCacheMax }]
  )

  register(registry,
    "sodamem_webhook_changes_total",
    "Memory changes the webhook dispatcher finished with since process start: delivered, failed (refused by the receiver) or dropped (outbox over its cap).",
    "counter",
    async () => {
      const counts = await Effect.runPromise(webhooks.snapshot)
      return (["delivered", "failed", "dropped"] as const).map((outcome) => ({ labels: { outcome }, value: counts[outcome] }))
    }
  )

  register(registry,
    "sodamem_webhook_changes_waiting",
    "Undelivered memory changes: pending in the outboxes, of which retrying after a failed attempt.",
    "gauge",
    async () => {
      const counts = await Effect.runPromise(webhooks.snapshot)
      return (["pending", "retrying"] as const).map((state) => ({ labels: { state }, value: counts[state] }))
    }
  )

  // The local embedder's threads, only where it runs.
  const pool = Option.flatMap(embedder.local, (local) => local.pool)
  if (Option.isSome(pool)) {
    register(registry, "sodamem_embed_queued_texts", "Texts waiting for a local embedding thread.", "gauge", async () => [{ labels: {}, value: pool.value.queuedTexts() }])
    register(registry, "sodamem_embed_threads_busy", "Local embedding threads running a batch now.", "gauge", async () => [{ labels: {}, value: pool.value.busyThreads() }])
  }

  return registry
}
