import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { authHeaders, rawFetch, startServer, waitForJob } from "./support/server.js"
import { seedFacts } from "./support/userRows.js"

describe("GET /v1/admin/stats", () => {
  it.scopedLive("reports users, store sizes, jobs and memories by status, requests logged and open stores", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const { baseUrl } = server
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
      yield* seedFacts(server, "small", [{ fact_id: "f1", content: "a" }, { fact_id: "f2", content: "b", status: "archived" }])
      yield* seedFacts(server, "big", [{ fact_id: "f3", content: "c" }])
      const stats = (yield* rawFetch(`${baseUrl}/v1/admin/stats`, { headers: authHeaders() })).body as Record<string, unknown>
      expect(stats).toMatchObject({
        users: 2,
        jobs_by_status: { succeeded: 1 },
        memories_by_status: { active: 2, archived: 1 },
        // Only SQLite holds a store open per user; PostgreSQL's users share the pool's connections.
        open_stores: server.databaseUrl === null ? 2 : 0
      })
      const largest = stats.largest_stores as Array<{ user_id: string; bytes: number }>
      expect(largest.map((s) => s.user_id)).toEqual(["big", "small"])
      expect(stats.stores_bytes).toBe(largest[0]!.bytes + largest[1]!.bytes)
      expect(stats.requests_logged).toBeGreaterThanOrEqual(4)
      expect(stats.control_db_bytes as number).toBeGreaterThan(0)
    }))
})
