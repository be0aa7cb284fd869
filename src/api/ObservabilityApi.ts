import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "./Authentication.js"
import { ScopeKeysInQuery } from "./ScopeKeysInQuery.js"

const latency = (what: string) => Schema.Number.annotations({ description: `${what} latency, in milliseconds.` })

export const RouteLatency = Schema.Struct({
  count: Schema.Int.annotations({ description: "Requests the figures are over: the route's most recent, at most 1024." }),
  min: latency("The lowest"),
  p50: latency("The median (nearest rank)"),
  p95: latency("The 95th percentile (nearest rank)"),
  p99: latency("The 99th percentile (nearest rank)"),
  max: latency("The highest")
}).annotations({ description: "One route's latency over its most recent requests." })

export class RouteMetrics extends Schema.Class<RouteMetrics>("RouteMetrics")({
  routes: Schema.Record({ key: Schema.String, value: RouteLatency }).annotations({
    description: "By route, keyed \"<METHOD> <template>\" (e.g. \"GET /v1/jobs/{job_id}\"; an unmatched path by its raw path). A route without traffic is absent."
  })
}, { description: "Per-route latency of this process, reset on restart." }) {}

const TokenCountFields = {
  calls: Schema.Int.annotations({ description: "LLM calls made, each attempt counted (retries included)." }),
  calls_with_usage: Schema.Int.annotations({ description: "Calls whose reply reported token counts." }),
  prompt_tokens: Schema.Int.annotations({ description: "Input tokens, as the provider counted them." }),
  completion_tokens: Schema.Int.annotations({ description: "Output tokens." }),
  total_tokens: Schema.Int.annotations({ description: "Input and output tokens together." }),
  cached_input_tokens: Schema.Int.annotations({ description: "Input tokens read from the provider's prompt cache." }),
  cache_creation_input_tokens: Schema.Int.annotations({ description: "Input tokens written to the provider's prompt cache." })
}

export const UsageSummary = Schema.Struct({
  ...TokenCountFields,
  by_phase: Schema.Record({ key: Schema.String, value: Schema.Struct(TokenCountFields).annotations({ description: "One phase's calls and tokens." }) }).annotations({
    description: "The same counts by phase of the operation (extract, reconcile, plan, read, profile, embed)."
  }),
  served_models: Schema.Array(Schema.String).annotations({ description: "The models the provider said served the calls." })
}).annotations({ identifier: "UsageSummary", description: "LLM calls and tokens." })

export class UsageReport extends Schema.Class<UsageReport>("UsageReport")({
  by_operation: Schema.Record({ key: Schema.String, value: UsageSummary }).annotations({
    description: "By operation: ingest (extraction and reconciliation), answer, maintenance. {} before any LLM traffic."
  }),
  total: Schema.Union(UsageSummary, Schema.Struct({})).annotations({ description: "The sum over operations; {} before the first LLM call." })
}, { description: "LLM usage since this process started, reset on restart." }) {}

export const PrometheusText = HttpApiSchema.Text({ contentType: "text/plain; version=0.0.4; charset=utf-8" })

export class ObservabilityApi extends HttpApiGroup.make("observability")
  .annotate(
    OpenApi.Description,
    "How the process is doing since it started: per-route latency, LLM usage, and the same as a Prometheus exposition. In-process figures, reset on restart."
  )
  .add(
    HttpApiEndpoint.get("metrics", "/v1/metrics")
      .addSuccess(RouteMetrics)
      .annotate(
        OpenApi.Summary,
        "Per-route latency (ms) over each route's most recent 1024 requests of this process: count, min, p50, p95, p99, max"
      )
      .annotate(
        OpenApi.Description,
        "Latency in milliseconds by route template, over each route's most recent 1024 requests of this process, percentiles by nearest rank. Routes without traffic are absent. Reset on restart."
      )
  )
  .add(
    HttpApiEndpoint.get("usage", "/v1/usage")
      .addSuccess(UsageReport)
      .annotate(
        OpenApi.Summary,
        "LLM calls and tokens since this process started, by operation (ingest, answer, maintenance) and in total; {} before any LLM traffic"
      )
      .annotate(
        OpenApi.Description,
        "LLM calls and tokens since the process started, counted call by call as replies arrive (retries included), by operation and in total. Embeddings made while writing and searching are not counted; the embedding maintenance run's calls are (operation maintenance, phase embed). Reset on restart."
      )
  )
  .add(
    HttpApiEndpoint.get("prometheus", "/metrics")
      .addSuccess(PrometheusText)
      .annotate(OpenApi.Summary, "Prometheus text exposition (behind the same key; scrape with a bearer credential)")
      .annotate(
        OpenApi.Description,
        "Prometheus text exposition: sodamem_http_requests_total (by method, path template and status), sodamem_http_request_duration_seconds (quantiles 0.5, 0.95, 0.99 over the same window as /v1/metrics), sodamem_llm_tokens_total (by operation and kind), the store cache gauges and the webhook counters. Needs the API key like every route; scrape it with a bearer credential."
      )
  )
  .middleware(ScopeKeysInQuery)
  .middleware(Authentication) {}
