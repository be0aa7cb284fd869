import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { authHeaders, ingestTurn, rawFetch, startServer } from "./support/server.js"
import { seedEntities, seedFacts, userRows } from "./support/userRows.js"

const del = (url: string) => rawFetch(url, { method: "DELETE", headers: authHeaders() })
const get = (url: string) => rawFetch(url, { headers: authHeaders() })

/** A server whose user "alice" has two facts; fact_1 has a role, two edges and a source span. */
const serverWithFacts = (env: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const server = yield* startServer(env)
    yield* ingestTurn(server.baseUrl, "alice", "I moved to Lisbon.")
    yield* seedFacts(server, "alice", [
      { fact_id: "fact_1", content: "Alice lives in Lisbon." },
      { fact_id: "fact_2", content: "Alice has a dog." }
    ])
    yield* seedEntities(server, "alice", [{ entity_id: "entity_lisbon", name: "Lisbon", normalized_name: "lisbon" }])
    const rows = userRows(server)
    yield* rows.insert("alice", "fact_entity_roles", [{ fact_id: "fact_1", entity_id: "entity_lisbon", role: "location" }])
    yield* rows.insert("alice", "edges", [
      { edge_id: "e1", src_fact_id: "fact_1", dst_id: "entity_lisbon", edge_type: "MENTIONS", created_at: 0 },
      { edge_id: "e2", src_fact_id: "fact_2", dst_id: "fact_1", edge_type: "CO_OCCURS", created_at: 0 }
    ])
    yield* rows.insert("alice", "fact_sources", [{ fact_id: "fact_1", span_id: "span_s1_1" }])
    return server
  })

describe("DELETE /v1/memories/{id} (archive)", () => {
  it.scoped("archives: the memory leaves list and get, its record stays, an event says why", () =>
    Effect.gen(function*() {
      const server = yield* serverWithFacts()
      const { baseUrl } = server
      const response = yield* del(`${baseUrl}/v1/memories/fact_1?user_id=alice`)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ id: "fact_1", deleted: true, already_deleted: false, purged: false, cascaded: {} })
      expect((yield* get(`${baseUrl}/v1/memories/fact_1?user_id=alice`)).status).toBe(404)
      expect((yield* get(`${baseUrl}/v1/memories?user_id=alice`)).body).toMatchObject({ total: 1 })
      expect(yield* userRows(server).select("alice", "facts", { columns: ["status"], where: { fact_id: "fact_1" } })).toEqual([{ status: "archived" }])
      const events = (yield* get(`${baseUrl}/v1/events?user_id=alice&type=memory_delete`)).body as { events: Array<Record<string, unknown>> }
      expect(events.events).toHaveLength(1)
      expect(events.events[0]).toMatchObject({ memory_id: "fact_1", reason: "archived by bootstrap", details: { action: "archive", archived: true } })
    }))

  it.scoped("is idempotent, and an unknown id or user is 200 with deleted false", () =>
    Effect.gen(function*() {
      const server = yield* serverWithFacts()
      const { baseUrl } = server
      yield* del(`${baseUrl}/v1/memories/fact_1?user_id=alice`)
      expect((yield* del(`${baseUrl}/v1/memories/fact_1?user_id=alice&mode=archive`)).body).toMatchObject({ deleted: true, already_deleted: true })
      expect((yield* get(`${baseUrl}/v1/events?user_id=alice&type=memory_delete`)).body).toMatchObject({ total: 1 })
      expect((yield* del(`${baseUrl}/v1/memories/nope?user_id=alice`)).body).toEqual({ id: "nope", deleted: false, already_deleted: false, purged: false, cascaded: {} })
      expect((yield* del(`${baseUrl}/v1/memories/fact_1?user_id=ghost`)).body).toMatchObject({ deleted: false })
      expect(yield* userRows(server).users).not.toContain("ghost")
    }))
})

describe("DELETE /v1/memories/{id}?purge=true", () => {
  it.scoped("is 403 forbidden while SERVICE_ALLOW_PURGE is off, and changes nothing", () =>
    Effect.gen(function*() {
      const server = yield* serverWithFacts()
      const { baseUrl } = server
      const response = yield* del(`${baseUrl}/v1/memories/fact_1?user_id=alice&purge=true`)
      expect(response.status).toBe(403)
      expect(response.body).toMatchObject({ code: "forbidden" })
      expect((response.body as { message: string }).message).toContain("SERVICE_ALLOW_PURGE")
      expect(yield* userRows(server).select("alice", "facts", { columns: ["status"], where: { fact_id: "fact_1" } })).toEqual([{ status: "active" }])
      expect((yield* del(`${baseUrl}/v1/memories/fact_1?user_id=alice&purge=maybe`)).status).toBe(422)
    }))

  it.scoped("erases the fact with its roles, edges, source links and index rows, redacts its words from its turn, and reports the counts", () =>
    Effect.gen(function*() {
      const server = yield* serverWithFacts({ SERVICE_ALLOW_PURGE: "true" })
      const { baseUrl } = server
      const response = yield* del(`${baseUrl}/v1/memories/fact_1?user_id=alice&purge=true`)
      expect(response.body).toEqual({
        id: "fact_1",
        deleted: true,
        already_deleted: false,
        purged: true,
        cascaded: { chroma_vectors: 0, fact_events: 1, vectors: 0, fact_entity_roles: 1, fact_edges: 2, fact_sources: 1, versions: 1, turns_redacted: 1 }
      })
      const rows = userRows(server)
      // The turn was one sentence, all of it the memory's: all of it goes.
      expect(yield* rows.select("alice", "turns", { columns: ["content", "recorded_content"] })).toEqual([{ content: "[redacted]", recorded_content: null }])
      expect(yield* rows.matching("alice", "turns", "lisbon")).toBe(0)
      expect(yield* rows.count("alice", "facts", { fact_id: "fact_1" })).toBe(0)
      expect(yield* rows.count("alice", "fact_entity_roles")).toBe(0)
      expect(yield* rows.count("alice", "edges")).toBe(0)
      expect(yield* rows.count("alice", "fact_sources")).toBe(0)
      expect(yield* rows.matching("alice", "facts", "lisbon")).toBe(0)
      expect(yield* rows.matching("alice", "facts", "dog")).toBe(1)
      const events = (yield* get(`${baseUrl}/v1/events?user_id=alice&type=memory_delete`)).body as { events: Array<Record<string, unknown>> }
      expect(events.events[0]).toMatchObject({ memory_id: "fact_1", details: { action: "purge", cascaded: { fact_edges: 2 } } })
      const again = yield* del(`${baseUrl}/v1/memories/fact_1?user_id=alice&purge=true`)
      expect(again.body).toEqual({
        id: "fact_1",
        deleted: false,
        already_deleted: false,
        purged: true,
        cascaded: { chroma_vectors: 0, fact_events: 0, vectors: 0, fact_entity_roles: 0, fact_edges: 0, fact_sources: 0, versions: 0, turns_redacted: 0 }
      })
    }))

  it.scoped("answers the reference service's counts beside ours, in the answer and its event: fact_events the memory rows erased, chroma_vectors their vectors", () =>
    Effect.gen(function*() {
      const server = yield* serverWithFacts({ SERVICE_ALLOW_PURGE: "true" })
      const { baseUrl } = server
      // fact_1 superseded an older version: the purge erases both rows.
      yield* seedFacts(server, "alice", [{ fact_id: "fact_0", content: "Alice lives in Porto.", status: "superseded", superseded_by: "fact_1" }])
      const response = yield* del(`${baseUrl}/v1/memories/fact_1?user_id=alice&purge=true`)
      const { cascaded } = response.body as { cascaded: Record<string, number> }
      expect(cascaded).toMatchObject({ fact_events: 2, chroma_vectors: 0, fact_entity_roles: 1, fact_edges: 2, versions: 2, vectors: 0 })
      expect(yield* userRows(server).count("alice", "facts")).toBe(1)
      const events = (yield* get(`${baseUrl}/v1/events?user_id=alice&type=memory_delete`)).body as { events: Array<{ details: { cascaded: unknown } }> }
      expect(events.events[0]?.details.cascaded).toEqual(cascaded)
      const missing = (yield* del(`${baseUrl}/v1/memories/nope?user_id=alice&purge=true`)).body as { cascaded: Record<string, number> }
      expect(missing.cascaded).toMatchObject({ fact_events: 0, chroma_vectors: 0, fact_entity_roles: 0, fact_edges: 0 })
    }))
})
