import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { authHeaders, ingestTurn, rawFetch, startServer } from "./support/server.js"
import { execStore, queryStore, seedFacts } from "./support/stores.js"

const del = (url: string) => rawFetch(url, { method: "DELETE", headers: authHeaders() })
const get = (url: string) => rawFetch(url, { headers: authHeaders() })

/** A server whose user "alice" has two facts; fact_1 has a role, two edges and a source span. */
const serverWithFacts = (env: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const server = yield* startServer(env)
    yield* ingestTurn(server.baseUrl, "alice", "I moved to Lisbon.")
    seedFacts(server.dataRoot, "alice", [
      { fact_id: "fact_1", content: "Alice lives in Lisbon." },
      { fact_id: "fact_2", content: "Alice has a dog." }
    ])
    execStore(server.dataRoot, "alice", `INSERT INTO entities (entity_id, name, normalized_name, updated_at) VALUES ('entity_lisbon', 'Lisbon', 'lisbon', 'x');
             INSERT INTO fact_entity_roles VALUES ('fact_1', 'entity_lisbon', 'location');
             INSERT INTO edges (edge_id, src_fact_id, dst_id, edge_type, created_at) VALUES ('e1', 'fact_1', 'entity_lisbon', 'MENTIONS', 0);
             INSERT INTO edges (edge_id, src_fact_id, dst_id, edge_type, created_at) VALUES ('e2', 'fact_2', 'fact_1', 'CO_OCCURS', 0);
             INSERT INTO fact_sources VALUES ('fact_1', 'span_s1_1');`)
    return server
  })

describe("DELETE /v1/memories/{id} (archive)", () => {
  it.scoped("archives: the memory leaves list and get, its record stays, an event says why", () =>
    Effect.gen(function*() {
      const { baseUrl, dataRoot } = yield* serverWithFacts()
      const response = yield* del(`${baseUrl}/v1/memories/fact_1?user_id=alice`)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ id: "fact_1", deleted: true, already_deleted: false, purged: false, cascaded: {} })
      expect((yield* get(`${baseUrl}/v1/memories/fact_1?user_id=alice`)).status).toBe(404)
      expect((yield* get(`${baseUrl}/v1/memories?user_id=alice`)).body).toMatchObject({ total: 1 })
      expect(queryStore(dataRoot, "alice", "SELECT status FROM facts WHERE fact_id = 'fact_1'")).toEqual([{ status: "archived" }])
      const events = (yield* get(`${baseUrl}/v1/events?user_id=alice&type=memory_delete`)).body as { events: Array<Record<string, unknown>> }
      expect(events.events).toHaveLength(1)
      expect(events.events[0]).toMatchObject({ memory_id: "fact_1", reason: "archived by bootstrap", details: { action: "archive", archived: true } })
    }))

  it.scoped("is idempotent, and an unknown id or user is 200 with deleted false", () =>
    Effect.gen(function*() {
      const { baseUrl, dataRoot } = yield* serverWithFacts()
      yield* del(`${baseUrl}/v1/memories/fact_1?user_id=alice`)
      expect((yield* del(`${baseUrl}/v1/memories/fact_1?user_id=alice&mode=archive`)).body).toMatchObject({ deleted: true, already_deleted: true })
      expect((yield* get(`${baseUrl}/v1/events?user_id=alice&type=memory_delete`)).body).toMatchObject({ total: 1 })
      expect((yield* del(`${baseUrl}/v1/memories/nope?user_id=alice`)).body).toEqual({ id: "nope", deleted: false, already_deleted: false, purged: false, cascaded: {} })
      expect((yield* del(`${baseUrl}/v1/memories/fact_1?user_id=ghost`)).body).toMatchObject({ deleted: false })
      expect(NodeFs.existsSync(NodePath.join(dataRoot, "ghost"))).toBe(false)
    }))
})

describe("DELETE /v1/memories/{id}?purge=true", () => {
  it.scoped("is 403 forbidden while SERVICE_ALLOW_PURGE is off, and changes nothing", () =>
    Effect.gen(function*() {
      const { baseUrl, dataRoot } = yield* serverWithFacts()
      const response = yield* del(`${baseUrl}/v1/memories/fact_1?user_id=alice&purge=true`)
      expect(response.status).toBe(403)
      expect(response.body).toMatchObject({ code: "forbidden" })
      expect((response.body as { message: string }).message).toContain("SERVICE_ALLOW_PURGE")
      expect(queryStore(dataRoot, "alice", "SELECT status FROM facts WHERE fact_id = 'fact_1'")).toEqual([{ status: "active" }])
      expect((yield* del(`${baseUrl}/v1/memories/fact_1?user_id=alice&purge=maybe`)).status).toBe(422)
    }))

  it.scoped("erases the fact with its roles, edges, source links and index rows, and reports the counts", () =>
    Effect.gen(function*() {
      const { baseUrl, dataRoot } = yield* serverWithFacts({ SERVICE_ALLOW_PURGE: "true" })
      const response = yield* del(`${baseUrl}/v1/memories/fact_1?user_id=alice&purge=true`)
      expect(response.body).toEqual({
        id: "fact_1",
        deleted: true,
        already_deleted: false,
        purged: true,
        cascaded: { vectors: 0, fact_entity_roles: 1, fact_edges: 2, fact_sources: 1 }
      })
      const count = (sql: string) => queryStore<{ n: number }>(dataRoot, "alice", sql)[0]!.n
      expect(count("SELECT count(*) AS n FROM facts WHERE fact_id = 'fact_1'")).toBe(0)
      expect(count("SELECT count(*) AS n FROM fact_entity_roles")).toBe(0)
      expect(count("SELECT count(*) AS n FROM edges")).toBe(0)
      expect(count("SELECT count(*) AS n FROM fact_sources")).toBe(0)
      expect(count("SELECT count(*) AS n FROM facts_fts WHERE facts_fts MATCH 'lisbon'")).toBe(0)
      expect(count("SELECT count(*) AS n FROM facts_fts WHERE facts_fts MATCH 'dog'")).toBe(1)
      const events = (yield* get(`${baseUrl}/v1/events?user_id=alice&type=memory_delete`)).body as { events: Array<Record<string, unknown>> }
      expect(events.events[0]).toMatchObject({ memory_id: "fact_1", details: { action: "purge", cascaded: { fact_edges: 2 } } })
      const again = yield* del(`${baseUrl}/v1/memories/fact_1?user_id=alice&purge=true`)
      expect(again.body).toEqual({
        id: "fact_1",
        deleted: false,
        already_deleted: false,
        purged: true,
        cascaded: { vectors: 0, fact_entity_roles: 0, fact_edges: 0, fact_sources: 0 }
      })
    }))
})
