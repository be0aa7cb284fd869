import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { authHeaders, ingestTurn, rawFetch, startServer } from "./support/server.js"
import { seedEntities, seedFacts, userRows } from "./support/userRows.js"

const patch = (url: string, body: unknown) =>
  rawFetch(url, { method: "PATCH", headers: { ...authHeaders(), "content-type": "application/json" }, body: JSON.stringify(body) })
const get = (url: string) => rawFetch(url, { headers: authHeaders() })

const serverWithFacts = Effect.gen(function*() {
  const server = yield* startServer()
  yield* ingestTurn(server.baseUrl, "alice", "I live in Porto.")
  yield* seedFacts(server, "alice", [
    { fact_id: "fact_home", content: "Alice lives in Porto.", kind: "state", agent_id: "planner" },
    { fact_id: "fact_old", content: "Alice had a cat.", status: "superseded" },
    { fact_id: "fact_gone", content: "Alice had a car.", status: "archived" }
  ])
  yield* seedEntities(server, "alice", [{ entity_id: "entity_alice", name: "Alice", normalized_name: "alice" }])
  yield* userRows(server).insert("alice", "fact_entity_roles", [{ fact_id: "fact_home", entity_id: "entity_alice", role: "subject" }])
  return server
})

describe("PATCH /v1/memories/{id}", () => {
  it.scoped("supersedes: a new version with provenance, the old one closed and still readable", () =>
    Effect.gen(function*() {
      const server = yield* serverWithFacts
      const { baseUrl } = server
      const response = yield* patch(`${baseUrl}/v1/memories/fact_home`, {
        user_id: "alice",
        content: "  Alice lives in Lisbon.  ",
        session_id: "fix-1",
        session_time: "2024-06-01"
      })
      expect(response.status).toBe(200)
      const result = response.body as { memory: Record<string, unknown>; superseded_id: string; valid_until: string }
      expect(result.superseded_id).toBe("fact_home")
      expect(result.valid_until).toBe("2024-06-01")
      expect(result.memory).toMatchObject({
        user_id: "alice",
        content: "Alice lives in Lisbon.",
        kind: "state",
        status: "active",
        session_id: "fix-1",
        valid_from: "2024-06-01",
        agent_id: "planner",
        metadata: { corrects: "fact_home" }
      })
      const newId = result.memory.id as string
      expect(newId).toMatch(/^fact_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/)
      expect((yield* get(`${baseUrl}/v1/memories/fact_home?user_id=alice`)).body).toMatchObject({ status: "superseded", valid_until: "2024-06-01" })
      const listed = (yield* get(`${baseUrl}/v1/memories?user_id=alice`)).body as { memories: Array<{ id: string }> }
      expect(listed.memories.map((m) => m.id)).toEqual([newId])
      // The new version keeps the old one's entities (and their edges) and points at what it supersedes.
      const rows = userRows(server)
      expect(yield* rows.select("alice", "edges", { columns: ["src_fact_id", "dst_id", "edge_type"], orderBy: "edge_type" })).toEqual([
        { src_fact_id: newId, dst_id: "entity_alice", edge_type: "SUBJECT_OF" },
        { src_fact_id: newId, dst_id: "fact_home", edge_type: "SUPERSEDES" }
      ])
      expect(yield* rows.select("alice", "fact_sources", { columns: ["span_id"], where: { fact_id: newId } })).toEqual([{ span_id: "span_fix-1_1" }])
      expect(yield* rows.select("alice", "turns", { columns: ["content"], where: { session_id: "fix-1" } })).toEqual([{ content: "Alice lives in Lisbon." }])
      expect(yield* rows.select("alice", "fact_entity_roles", { columns: ["entity_id", "role"], where: { fact_id: newId } })).toEqual([
        { entity_id: "entity_alice", role: "subject" }
      ])
      expect(yield* rows.select("alice", "entities", { columns: ["profile_stale"] })).toEqual([{ profile_stale: 1 }])
    }))

  it.scoped("records a memory_supersede event with its reason, and the add of the new version", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* serverWithFacts
      const response = yield* patch(`${baseUrl}/v1/memories/fact_home`, { user_id: "alice", content: "Alice lives in Lisbon.", session_id: "fix-2" })
      const newId = (response.body as { memory: { id: string } }).memory.id
      const events = ((yield* get(`${baseUrl}/v1/events?user_id=alice`)).body as { events: Array<Record<string, unknown>> }).events
      expect(events[0]).toMatchObject({
        type: "memory_supersede",
        memory_id: "fact_home",
        session_id: "fix-2",
        reason: "corrected by bootstrap in session fix-2",
        details: { new_memory_id: newId, actor: "bootstrap" }
      })
      expect(events[1]).toMatchObject({ type: "memory_add", memory_id: newId })
    }))

  it.scoped("refuses: archived or unknown → 404, superseded → 409 conflict, blank content → 422 unprocessable", () =>
    Effect.gen(function*() {
      const server = yield* serverWithFacts
      const { baseUrl } = server
      for (const target of ["fact_gone", "nope"]) {
        const response = yield* patch(`${baseUrl}/v1/memories/${target}`, { user_id: "alice", content: "x" })
        expect(response.status, target).toBe(404)
        expect(response.body).toEqual({ code: "not_found", message: `memory '${target}' not found`, details: {} })
      }
      const outOfScope = yield* patch(`${baseUrl}/v1/memories/fact_home`, { user_id: "alice", agent_id: "coder", content: "x" })
      expect(outOfScope.status).toBe(404)
      const superseded = yield* patch(`${baseUrl}/v1/memories/fact_old`, { user_id: "alice", content: "x" })
      expect(superseded.status).toBe(409)
      expect(superseded.body).toMatchObject({ code: "conflict", details: { status: "superseded" } })
      const blank = yield* patch(`${baseUrl}/v1/memories/fact_home`, { user_id: "alice", content: "   " })
      expect(blank.status).toBe(422)
      expect(blank.body).toMatchObject({ code: "unprocessable" })
      const empty = yield* patch(`${baseUrl}/v1/memories/fact_home`, { user_id: "alice", content: "" })
      expect((empty.body as { code: string }).code).toBe("validation_error")
      const badTime = yield* patch(`${baseUrl}/v1/memories/fact_home`, { user_id: "alice", content: "x", session_time: "soon" })
      expect(badTime.body).toMatchObject({ code: "ingest_failed" })
      expect(yield* userRows(server).select("alice", "facts", { columns: ["status"], where: { fact_id: "fact_home" } })).toEqual([{ status: "active" }])
      expect(yield* userRows(server).count("alice", "edges")).toBe(0)
    }))

  it.scoped("a memory corrected twice chains its versions: the first correction is then the one superseded", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* serverWithFacts
      const first = yield* patch(`${baseUrl}/v1/memories/fact_home`, { user_id: "alice", content: "Alice lives in Lisbon." })
      const firstId = (first.body as { memory: { id: string } }).memory.id
      const second = yield* patch(`${baseUrl}/v1/memories/${firstId}`, { user_id: "alice", content: "Alice lives in Madrid." })
      expect(second.status).toBe(200)
      expect((second.body as { superseded_id: string }).superseded_id).toBe(firstId)
      expect((yield* patch(`${baseUrl}/v1/memories/fact_home`, { user_id: "alice", content: "again" })).status).toBe(409)
    }))
})
