import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { authHeaders, ingestTurn, rawFetch, startServer, waitForJob } from "./support/server.js"
import { seedFacts, userRows } from "./support/userRows.js"

const del = (url: string) => rawFetch(url, { method: "DELETE", headers: authHeaders() })
const get = (url: string) => rawFetch(url, { headers: authHeaders() })
const ingest = (baseUrl: string, body: Record<string, unknown>) =>
  rawFetch(`${baseUrl}/v1/memories`, {
    method: "POST",
    headers: { ...authHeaders(), "content-type": "application/json" },
    body: JSON.stringify({ infer: false, ...body })
  })

const serverWithFacts = (env: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const server = yield* startServer(env)
    yield* ingestTurn(server.baseUrl, "alice", "hello")
    yield* seedFacts(server, "alice", [
      { fact_id: "fact_1", content: "one" },
      { fact_id: "fact_2", content: "two" },
      { fact_id: "fact_3", content: "three", status: "superseded" }
    ])
    return server
  })

describe("DELETE /v1/memories?user_id=", () => {
  it.scoped("archives every current memory of the user in one step, with one event", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* serverWithFacts()
      const response = yield* del(`${baseUrl}/v1/memories?user_id=alice`)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ user_id: "alice", deleted: true, purged: false, archived: 2 })
      expect((yield* get(`${baseUrl}/v1/memories?user_id=alice`)).body).toMatchObject({ total: 0 })
      const events = ((yield* get(`${baseUrl}/v1/events?user_id=alice&type=memory_delete`)).body as { events: Array<Record<string, unknown>> }).events
      expect(events).toHaveLength(1)
      expect(events[0]).toMatchObject({ memory_id: null, reason: "all memories archived by bootstrap", details: { action: "archive_user", archived: 2 } })
    }))

  it.scoped("for an unknown user is 200 with deleted false and creates nothing", () =>
    Effect.gen(function*() {
      const server = yield* startServer({ SERVICE_ALLOW_PURGE: "true" })
      const { baseUrl } = server
      expect((yield* del(`${baseUrl}/v1/memories?user_id=ghost`)).body).toEqual({ user_id: "ghost", deleted: false, purged: false, archived: 0 })
      expect((yield* del(`${baseUrl}/v1/memories?user_id=ghost&purge=true`)).body).toEqual({ user_id: "ghost", deleted: false, purged: true, archived: 0 })
      expect(yield* userRows(server).users).toEqual([])
    }))

  it.scoped("refuses scope keys (501) and purge while it is off (403), changing nothing", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* serverWithFacts()
      const scoped = yield* del(`${baseUrl}/v1/memories?user_id=alice&agent_id=planner`)
      expect(scoped.status).toBe(501)
      expect(scoped.body).toMatchObject({ code: "not_implemented", details: { scope_keys: ["agent_id"] } })
      expect((yield* del(`${baseUrl}/v1/memories?user_id=alice&purge=true`)).status).toBe(403)
      expect((yield* get(`${baseUrl}/v1/memories?user_id=alice`)).body).toMatchObject({ total: 2 })
    }))

  it.scopedLive("purge erases the user's store and their finished jobs with it", () =>
    Effect.gen(function*() {
      const server = yield* serverWithFacts({ SERVICE_ALLOW_PURGE: "true" })
      const { baseUrl } = server
      const accepted = yield* ingest(baseUrl, { user_id: "alice", messages: [{ content: "async" }] })
      const jobId = (accepted.body as { job_id: string }).job_id
      expect(yield* waitForJob(baseUrl, jobId)).toMatchObject({ status: "succeeded" })
      const response = yield* del(`${baseUrl}/v1/memories?user_id=alice&purge=true`)
      expect(response.body).toEqual({ user_id: "alice", deleted: true, purged: true, archived: 0 })
      expect(yield* userRows(server).users).not.toContain("alice")
      // A job's result is the user's data too (an ingest names their session, an answer quotes them).
      expect((yield* get(`${baseUrl}/v1/jobs/${jobId}`)).status).toBe(404)
      expect((yield* get(`${baseUrl}/v1/memories?user_id=alice`)).body).toMatchObject({ total: 0 })
      expect(yield* userRows(server).users).not.toContain("alice")
      expect((yield* ingest(baseUrl, { user_id: "alice", async_mode: false, messages: [{ content: "fresh start" }] })).status).toBe(200)
    }))

  it.scopedLive("a purge racing with writes for the same user never fails a request", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer({ SERVICE_ALLOW_PURGE: "true", SERVICE_STORE_CACHE_MAX: "1" })
      const writes = Array.from({ length: 30 }, (_, i) =>
        ingest(baseUrl, { user_id: i % 2 === 0 ? "racer" : "other", async_mode: false, messages: [{ content: `m${i}` }] }))
      const purges = Array.from({ length: 3 }, () => del(`${baseUrl}/v1/memories?user_id=racer&purge=true`))
      const statuses = yield* Effect.all([...writes, ...purges], { concurrency: 12 }).pipe(Effect.map((responses) => responses.map((r) => r.status)))
      expect(statuses.every((status) => status === 200), JSON.stringify(statuses)).toBe(true)
    }))
})
