import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import parse from "parse-prometheus-text-format"
import { AppConfig } from "../src/config/AppConfig.js"
import { Embedder } from "../src/llm/Embedder.js"
import { LlmProvider } from "../src/llm/LlmProvider.js"
import { LlmUsage } from "../src/llm/LlmUsage.js"
import { Prometheus } from "../src/services/observability/Prometheus.js"
import { RequestMetrics, RING_SIZE } from "../src/services/observability/RequestMetrics.js"
import { SqliteStorageLive } from "../src/storage/sqlite/SqliteStorage.js"
import { API_KEY, authHeaders, rawFetch, startServer, tempDataRoot } from "./support/server.js"
import { WebhookCounters } from "../src/services/webhooks/WebhookCounters.js"

describe("GET /v1/metrics", () => {
  it.scoped("reports count, min, p50, p95, p99, max per route template, only for routes with traffic", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      for (const id of ["a", "b", "c"]) yield* rawFetch(`${baseUrl}/v1/jobs/${id}`, { headers: authHeaders() })
      yield* rawFetch(`${baseUrl}/v1/zzz/abc`)
      const response = yield* rawFetch(`${baseUrl}/v1/metrics`, { headers: authHeaders() })
      const routes = (response.body as { routes: Record<string, Record<string, number>> }).routes
      expect(Object.keys(routes).sort()).toEqual(["GET /v1/jobs/{job_id}", "GET /v1/zzz/abc"])
      const jobs = routes["GET /v1/jobs/{job_id}"]!
      expect(jobs.count).toBe(3)
      expect(jobs.min! <= jobs.p50! && jobs.p50! <= jobs.p95! && jobs.p95! <= jobs.p99! && jobs.p99! <= jobs.max!).toBe(true)
      expect((yield* rawFetch(`${baseUrl}/v1/metrics`)).status).toBe(401)
    }))

  it.effect("keeps the most recent samples per route and ranks them by nearest rank", () =>
    Effect.gen(function*() {
      const metrics = yield* RequestMetrics
      for (let i = 1; i <= 100; i++) yield* metrics.record("GET", "/x", 200, i)
      expect((yield* metrics.latencies)["GET /x"]).toEqual({ count: 100, min: 1, p50: 50, p95: 95, p99: 99, max: 100 })
      for (let i = 0; i < 2 * RING_SIZE; i++) yield* metrics.record("GET", "/y", 200, i)
      const y = (yield* metrics.latencies)["GET /y"]!
      expect(y.count).toBe(RING_SIZE)
      expect(y.min).toBe(RING_SIZE)
    }).pipe(Effect.provide(RequestMetrics.Default)))
})

describe("GET /metrics", () => {
  it.scoped("is Prometheus text behind the key, read by a real Prometheus parser", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      expect((yield* rawFetch(`${baseUrl}/metrics`)).status).toBe(401)
      for (const id of ["a", "b"]) yield* rawFetch(`${baseUrl}/v1/jobs/${id}`, { headers: authHeaders() })
      const response = yield* rawFetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${API_KEY}` } })
      expect(response.status).toBe(200)
      expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8")
      expect(response.text.endsWith("\n")).toBe(true)
      const families = new Map(parse(response.text).map((family) => [family.name, family]))
      const requests = families.get("sodamem_http_requests_total")!
      expect(requests.type).toBe("COUNTER")
      expect(requests.metrics).toContainEqual({ labels: { method: "GET", path: "/v1/jobs/{job_id}", status: "404" }, value: "2" })
      expect(requests.metrics.some((m) => m.labels?.path === "/v1/jobs/a")).toBe(false)
      // The parser folds labelled summaries into one series, so their lines are checked as text.
      expect(families.get("sodamem_http_request_duration_seconds")?.type).toBe("SUMMARY")
      const route = 'route="GET /v1/jobs/{job_id}"'
      for (const quantile of ["0.5", "0.95", "0.99"]) {
        expect(response.text).toMatch(new RegExp(`^sodamem_http_request_duration_seconds\\{${route.replace(/[{}]/g, "\\$&")},quantile="${quantile}"\\} 0\\.\\d+$`, "m"))
      }
      expect(response.text).toContain(`sodamem_http_request_duration_seconds_count{${route}} 2`)
      expect(response.text).not.toContain("_sum")
      expect(families.get("sodamem_llm_tokens_total")).toMatchObject({ type: "COUNTER", metrics: [] })
      expect(families.get("sodamem_store_cache_max")?.metrics).toEqual([{ value: "64" }])
      expect(families.has("sodamem_store_cache_open")).toBe(true)
    }))

  it.effect("reports LLM tokens by operation and kind, sorted", () =>
    Effect.gen(function*() {
      const usage = yield* LlmUsage
      const prometheus = yield* Prometheus
      const spend = {
        phase: "read",
        model: "m",
        served_model: "m-1",
        usage_available: true,
        prompt_tokens: 100,
        completion_tokens: 20,
        total_tokens: 120,
        cached_input_tokens: 0,
        cache_creation_input_tokens: 0
      }
      yield* usage.record("answer", spend)
      yield* usage.record("answer", spend)
      yield* usage.record("ingest", spend)
      const tokens = parse(yield* prometheus.exposition).find((family) => family.name === "sodamem_llm_tokens_total")!
      expect(tokens.metrics).toContainEqual({ labels: { operation: "answer", kind: "prompt_tokens" }, value: "200" })
      expect(tokens.metrics).toContainEqual({ labels: { operation: "ingest", kind: "calls" }, value: "1" })
      expect(tokens.metrics.map((m) => m.labels?.operation)).toEqual([...Array(7).fill("answer"), ...Array(7).fill("ingest")])
    }).pipe(Effect.provide(
      Prometheus.Default.pipe(
        Layer.provide(Embedder.Default.pipe(Layer.provide(LlmProvider.Default))),
        Layer.provideMerge(Layer.mergeAll(LlmUsage.Default, RequestMetrics.Default, SqliteStorageLive, WebhookCounters.Default)),
        Layer.provideMerge(AppConfig.layer),
        Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["SERVICE_API_KEY", "k"], ["SERVICE_DATA_ROOT", tempDataRoot()]]))))
      )
    )))
})
