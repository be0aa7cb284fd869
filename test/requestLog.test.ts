import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { RequestLogRow } from "../src/domain/records.js"
import { apiClient, authHeaders, rawFetch, startServer, waitForJob } from "./support/server.js"
import { queryStore, seedFacts } from "./support/stores.js"

const page = (baseUrl: string, query = "") =>
  Effect.map(rawFetch(`${baseUrl}/v1/admin/requests${query}`, { headers: authHeaders() }), (r) => r.body as { requests: Array<RequestLogRow>; total: number; offset: number; limit: number })

describe("request log", () => {
  it.scoped("records route templates, status, latency, key name and request id; not successful /health", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      yield* rawFetch(`${baseUrl}/health`)
      const job = yield* rawFetch(`${baseUrl}/v1/jobs/abc123`, { headers: { ...authHeaders(), "x-request-id": "trace-7" } })
      yield* rawFetch(`${baseUrl}/v1/jobs/abc123`)
      yield* rawFetch(`${baseUrl}/v1/no/such`)
      const log = yield* page(baseUrl)
      expect(log.requests.map((e) => [e.method, e.route, e.status_code, e.key_name])).toEqual([
        ["GET", "/v1/no/such", 404, null],
        ["GET", "/v1/jobs/{job_id}", 401, null],
        ["GET", "/v1/jobs/{job_id}", 404, "bootstrap"]
      ])
      expect(log.requests[2]!.request_id).toBe("trace-7")
      expect(job.headers.get("x-request-id")).toBe("trace-7")
      expect(log.requests[2]!.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/)
      expect(log.requests[2]!.latency_ms).toBeGreaterThan(0)
      expect(JSON.stringify(log)).not.toContain("abc123")
      expect(log).toMatchObject({ total: 3, offset: 0, limit: 100 })
    }))

  it.scoped("names the named key that made a request, here and in the audit events", () =>
    Effect.gen(function*() {
      const { baseUrl, dataRoot } = yield* startServer()
      const admin = yield* apiClient(baseUrl)
      const created = yield* admin.admin.createKey({ payload: { name: "importer" } })
      yield* rawFetch(`${baseUrl}/v1/memories`, {
        method: "POST",
        headers: { authorization: `Bearer ${created.api_key}`, "content-type": "application/json" },
        body: JSON.stringify({ user_id: "u", infer: false, async_mode: false, messages: [{ content: "x" }] })
      })
      const log = yield* page(baseUrl)
      expect(log.requests.find((e) => e.route === "/v1/memories")?.key_name).toBe("importer")
      const [event] = queryStore<{ details: string }>(dataRoot, "u", "SELECT details FROM events")
      expect(JSON.parse(event!.details).actor).toBe("importer")
    }))

  it.scoped("keeps only the newest SERVICE_REQUEST_LOG_MAX rows", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer({ SERVICE_REQUEST_LOG_MAX: "3" })
      for (const id of ["a", "b", "c", "d", "e"]) yield* rawFetch(`${baseUrl}/v1/jobs/${id}`)
      const log = yield* page(baseUrl)
      // The listing request itself is logged after it answers, so it is not in its own page.
      expect(log.total).toBe(3)
      expect(log.requests).toHaveLength(3)
      expect((yield* page(baseUrl)).total).toBe(3)
    }))

  it.scoped("SERVICE_REQUEST_LOG_MAX=0 writes nothing at all", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer({ SERVICE_REQUEST_LOG_MAX: "0" })
      yield* rawFetch(`${baseUrl}/v1/jobs/a`)
      yield* rawFetch(`${baseUrl}/v1/nope`)
      yield* rawFetch(`${baseUrl}/v1/admin/config`, { headers: authHeaders() })
      expect(yield* page(baseUrl)).toEqual({ requests: [], total: 0, offset: 0, limit: 100 })
    }))

  it.scoped("pages newest first with offset and limit (1..1000)", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      for (const id of ["a", "b", "c"]) yield* rawFetch(`${baseUrl}/v1/jobs/${id}`, { headers: { "x-request-id": `r-${id}` } })
      const second = yield* page(baseUrl, "?offset=1&limit=1")
      expect(second.requests.map((e) => e.request_id)).toEqual(["r-b"])
      expect(second).toMatchObject({ offset: 1, limit: 1 })
      expect((yield* rawFetch(`${baseUrl}/v1/admin/requests?limit=1001`, { headers: authHeaders() })).status).toBe(422)
    }))
})

describe("GET /v1/admin/stats", () => {
  it.scopedLive("reports users, store sizes, jobs and memories by status, requests logged and open stores", () =>
    Effect.gen(function*() {
      const { baseUrl, dataRoot } = yield* startServer()
      const ingest = (userId: string, messages: number, asyncMode: boolean) =>
        rawFetch(`${baseUrl}/v1/memories`, {
          method: "POST",
          headers: { ...authHeaders(), "content-type": "application/json" },
          body: JSON.stringify({ user_id: userId, infer: false, async_mode: asyncMode, messages: Array.from({ length: messages }, (_, i) => ({ content: `message ${i} `.repeat(50) })) })
        })
      yield* ingest("small", 1, false)
      yield* ingest("big", 200, false)
      const accepted = yield* ingest("small", 1, true)
      const jobId = (accepted.body as { job_id: string }).job_id
      expect(yield* waitForJob(baseUrl, jobId)).toMatchObject({ status: "succeeded" })
      seedFacts(dataRoot, "small", [{ fact_id: "f1", content: "a" }, { fact_id: "f2", content: "b", status: "archived" }])
      seedFacts(dataRoot, "big", [{ fact_id: "f3", content: "c" }])
      const stats = (yield* rawFetch(`${baseUrl}/v1/admin/stats`, { headers: authHeaders() })).body as Record<string, unknown>
      expect(stats).toMatchObject({
        users: 2,
        jobs_by_status: { succeeded: 1 },
        memories_by_status: { active: 2, archived: 1 },
        open_stores: 2
      })
      const largest = stats.largest_stores as Array<{ user_id: string; bytes: number }>
      expect(largest.map((s) => s.user_id)).toEqual(["big", "small"])
      expect(stats.stores_bytes).toBe(largest[0]!.bytes + largest[1]!.bytes)
      expect(stats.requests_logged).toBeGreaterThanOrEqual(4)
      expect(stats.control_db_bytes as number).toBeGreaterThan(0)
    }))
})
