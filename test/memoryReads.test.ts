import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { authHeaders, ingestTurn, rawFetch, startServer } from "./support/server.js"
import { SEEDED_FACT, seedFacts, userRows } from "./support/userRows.js"

const get = (url: string) => rawFetch(url, { headers: authHeaders() })

/** A server whose user "alice" has a store (from one ingest) seeded with facts. */
const serverWithFacts = Effect.gen(function*() {
  const server = yield* startServer()
  yield* ingestTurn(server.baseUrl, "alice", "hello")
  yield* seedFacts(server, "alice", [
    { fact_id: "fact_1", content: "Alice lives in Lisbon." },
    { fact_id: "fact_2", content: "Alice lived in Porto.", status: "superseded", valid_until: "2024-03-01" },
    { fact_id: "fact_3", content: "Alice had a cat.", status: "archived" },
    { fact_id: "fact_4", content: "Alice is tired.", kind: "state", valid_until: "2001-01-01" },
    { fact_id: "fact_5", content: "Alice plans the trip.", agent_id: "planner" },
    { fact_id: "fact_6", content: "Alice writes code.", agent_id: "coder", project_id: "p1" },
    { fact_id: "fact_7", content: "Alice prefers tea.", kind: "preference", valid_until: "2999-01-01" }
  ])
  return server
})

const ids = (body: unknown) => (body as { memories: Array<{ id: string }> }).memories.map((m) => m.id)

describe("GET /v1/memories", () => {
  it.scoped("lists current memories oldest first: no superseded, archived or expired ones", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* serverWithFacts
      const response = yield* get(`${baseUrl}/v1/memories?user_id=alice`)
      expect(response.status).toBe(200)
      expect(ids(response.body)).toEqual(["fact_1", "fact_5", "fact_6", "fact_7"])
      expect(response.body).toMatchObject({ total: 4, offset: 0, limit: 50 })
      expect((response.body as { memories: Array<unknown> }).memories[0]).toEqual({
        ...SEEDED_FACT,
        id: "fact_1",
        user_id: "alice",
        run_id: null,
        content: "Alice lives in Lisbon.",
        metadata: { support_text: "seed" }
      })
    }))

  it.scoped("pages with offset and limit; total counts the whole filtered set", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* serverWithFacts
      const page = yield* get(`${baseUrl}/v1/memories?user_id=alice&offset=1&limit=2`)
      expect(ids(page.body)).toEqual(["fact_5", "fact_6"])
      expect(page.body).toMatchObject({ total: 4, offset: 1, limit: 2 })
      const tooMany = yield* get(`${baseUrl}/v1/memories?user_id=alice&limit=501`)
      expect(tooMany.status).toBe(422)
      expect((tooMany.body as { details: { errors: Array<unknown> } }).details.errors[0]).toMatchObject({
        type: "less_than_equal",
        loc: ["query", "limit"],
        ctx: { le: 500 }
      })
    }))

  it.scoped("scope keys narrow: facts stamped otherwise are left out, unstamped ones stay", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* serverWithFacts
      expect(ids((yield* get(`${baseUrl}/v1/memories?user_id=alice&agent_id=planner`)).body)).toEqual(["fact_1", "fact_5", "fact_7"])
      expect(ids((yield* get(`${baseUrl}/v1/memories?user_id=alice&project_id=p1`)).body)).toEqual(["fact_1", "fact_5", "fact_6", "fact_7"])
      expect(ids((yield* get(`${baseUrl}/v1/memories?user_id=alice&agent_id=`)).body)).toHaveLength(4)
    }))

  it.scoped("an unknown user has no memories, and reading creates no store", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const response = yield* get(`${server.baseUrl}/v1/memories?user_id=ghost`)
      expect(response.body).toEqual({ memories: [], total: 0, offset: 0, limit: 50 })
      expect(yield* userRows(server).users).toEqual([])
    }))
})

describe("GET /v1/memories/{id}", () => {
  it.scoped("returns current and superseded versions; archived, unknown and out-of-scope ones are 404", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* serverWithFacts
      expect((yield* get(`${baseUrl}/v1/memories/fact_1?user_id=alice`)).body).toMatchObject({ id: "fact_1", status: "active" })
      expect((yield* get(`${baseUrl}/v1/memories/fact_2?user_id=alice`)).body).toMatchObject({ status: "superseded", valid_until: "2024-03-01" })
      for (const path of ["fact_3?user_id=alice", "nope?user_id=alice", "fact_1?user_id=ghost", "fact_6?user_id=alice&agent_id=planner"]) {
        const response = yield* get(`${baseUrl}/v1/memories/${path}`)
        expect(response.status, path).toBe(404)
        expect((response.body as { code: string }).code).toBe("not_found")
      }
      const archived = yield* get(`${baseUrl}/v1/memories/fact_3?user_id=alice`)
      expect(archived.body).toEqual({ code: "not_found", message: "memory 'fact_3' not found", details: {} })
    }))
})

describe("GET /v1/events", () => {
  it.scoped("lists the audit log newest first, filtered by type, paged", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      for (const session of ["a", "b", "c"]) {
        yield* rawFetch(`${baseUrl}/v1/memories`, {
          method: "POST",
          headers: { ...authHeaders(), "content-type": "application/json" },
          body: JSON.stringify({ user_id: "alice", session_id: session, infer: false, async_mode: false, messages: [{ content: session }] })
        })
      }
      const all = yield* get(`${baseUrl}/v1/events?user_id=alice`)
      const events = (all.body as { events: Array<Record<string, unknown>> }).events
      expect(events.map((e) => e.session_id)).toEqual(["c", "b", "a"])
      expect(all.body).toMatchObject({ total: 3, offset: 0, limit: 50 })
      expect(events[0]).toMatchObject({ user_id: "alice", agent_id: null, run_id: null, type: "memory_add", memory_id: null })
      expect((events[0]!.details as Record<string, unknown>).actor).toBe("bootstrap")
      const paged = yield* get(`${baseUrl}/v1/events?user_id=alice&offset=1&limit=1`)
      expect((paged.body as { events: Array<{ session_id: string }> }).events.map((e) => e.session_id)).toEqual(["b"])
      expect((yield* get(`${baseUrl}/v1/events?user_id=alice&type=memory_add`)).body).toMatchObject({ total: 3 })
      expect((yield* get(`${baseUrl}/v1/events?user_id=alice&type=memory_delete`)).body).toMatchObject({ total: 0, events: [] })
      expect((yield* get(`${baseUrl}/v1/events?user_id=alice&type=everything`)).body).toMatchObject({ total: 0, events: [] })
      expect((yield* get(`${baseUrl}/v1/events?user_id=alice&limit=201`)).status).toBe(422)
    }))
})
