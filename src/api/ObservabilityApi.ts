import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "./Authentication.js"
import { ScopeKeysInQuery } from "./ScopeKeysInQuery.js"

export const RouteLatency = Schema.Struct({
  count: Schema.Int,
  min: Schema.Number,
  p50: Schema.Number,
  p95: Schema.Number,
  p99: Schema.Number,
  max: Schema.Number
})

export class RouteMetrics extends Schema.Class<RouteMetrics>("RouteMetrics")({
  routes: Schema.Record({ key: Schema.String, value: RouteLatency })
}) {}

const TokenCountFields = {
  calls: Schema.Int,
  calls_with_usage: Schema.Int,
  prompt_tokens: Schema.Int,
  completion_tokens: Schema.Int,
  total_tokens: Schema.Int,
  cached_input_tokens: Schema.Int,
  cache_creation_input_tokens: Schema.Int
}

export const UsageSummary = Schema.Struct({
  ...TokenCountFields,
  by_phase: Schema.Record({ key: Schema.String, value: Schema.Struct(TokenCountFields) }),
  served_models: Schema.Array(Schema.String)
}).annotations({ identifier: "UsageSummary" })

export class UsageReport extends Schema.Class<UsageReport>("UsageReport")({
  by_operation: Schema.Record({ key: Schema.String, value: UsageSummary }),
  /** The sum over operations; {} before the first LLM call. */
  total: Schema.Union(UsageSummary, Schema.Struct({}))
}) {}

export const PrometheusText = HttpApiSchema.Text({ contentType: "text/plain; version=0.0.4; charset=utf-8" })

export class ObservabilityApi extends HttpApiGroup.make("observability")
  .add(
    HttpApiEndpoint.get("metrics", "/v1/metrics")
      .addSuccess(RouteMetrics)
      .annotate(
        OpenApi.Summary,
        "Per-route latency (ms) over each route's most recent 1024 requests of this process: count, min, p50, p95, p99, max"
      )
  )
  .add(
    HttpApiEndpoint.get("usage", "/v1/usage")
      .addSuccess(UsageReport)
      .annotate(
        OpenApi.Summary,
        "LLM calls and tokens since this process started, by operation (ingest, answer, maintenance) and in total; {} before any LLM traffic"
      )
  )
  .add(
    HttpApiEndpoint.get("prometheus", "/metrics")
      .addSuccess(PrometheusText)
      .annotate(OpenApi.Summary, "Prometheus text exposition (behind the same key; scrape with a bearer credential)")
  )
  .middleware(ScopeKeysInQuery)
  .middleware(Authentication) {}
