import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { llmEnv, providerStub } from "./support/llm.js"
import { authHeaders, ingestTurn, rawFetch, sendJson, startServer } from "./support/server.js"
import { seedEntities, seedFacts, userRows } from "./support/userRows.js"

const get = (url: string) => rawFetch(url, { headers: authHeaders() })

interface Card extends Record<string, unknown> {
  readonly id: string
  readonly fact_id: string | null
  readonly evidence_id: string
  readonly predicate_raw: string | null
  readonly status: string
  readonly version_status: string
}
interface Explored {
  readonly count: { nodes: number; edges: number }
  readonly nodes: Array<Card>
  readonly edges: Array<Record<string, unknown> & { edge_id: string; src_fact_id: string; dst_id: string }>
}
interface Refined {
  readonly items: Array<Card>
  readonly total_candidates: number
  readonly has_more: boolean
  readonly next_offset: number
  readonly available_next_tools: Array<{ name: string; description: string }>
}

const serverWithLlm = (env: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const stub = yield* providerStub("openai")
    const server = yield* startServer({ ...llmEnv(stub), ...env })
    return { ...server, stub }
  })

const ingest = (baseUrl: string, body: Record<string, unknown>) =>
  sendJson(`${baseUrl}/v1/memories`, { user_id: "alice", async_mode: false, ...body })

/**
 * User "bob": f_a supersedes f_b, which supersedes f_c; f_a and f_d (stamped agent "coder") both
 * name the entity "Xavier Café"; f_d supports f_a; f_a cites a span. Edges e4 and e6 share a
 * creation time (ordered by id).
 */
const seededGraph = Effect.gen(function*() {
  const server = yield* startServer()
  yield* ingestTurn(server.baseUrl, "bob", "hello")
  yield* seedFacts(server, "bob", [
    { fact_id: "f_a", content: "Bob met Xavier at the café." },
    { fact_id: "f_b", content: "Bob met Xavier in 2020.", status: "superseded" },
    { fact_id: "f_c", content: "Bob met Xavier in 2019.", status: "superseded" },
    { fact_id: "f_d", content: "Xavier runs a café.", agent_id: "coder" }
  ])
  yield* seedEntities(server, "bob", [{ entity_id: "entity_xavier_cafe", name: "Xavier Café", normalized_name: "xavier cafe" }])
  const rows = userRows(server)
  yield* rows.insert("bob", "fact_entity_roles", [
    { fact_id: "f_a", entity_id: "entity_xavier_cafe", role: "object" },
    { fact_id: "f_d", entity_id: "entity_xavier_cafe", role: "subject" }
  ])
  const edge = (edge_id: string, src_fact_id: string, dst_id: string, edge_type: string, predicate: string | null, created_at: number) =>
    ({ edge_id, src_fact_id, dst_id, edge_type, predicate, confidence: 1, metadata: "{}", created_at })
  yield* rows.insert("bob", "edges", [
    edge("e1", "f_a", "f_b", "SUPERSEDES", "supersedes", 100),
    edge("e2", "f_b", "f_c", "SUPERSEDES", "supersedes", 200),
    edge("e3", "f_a", "entity_xavier_cafe", "MENTIONS", "met", 300),
    edge("e4", "f_d", "entity_xavier_cafe", "SUBJECT_OF", "runs", 50),
    { ...edge("e5", "f_a", "span_s1_1", "EVIDENCES", null, 400.25), confidence: 0.5, metadata: `{"note":"seed"}` },
    edge("e6", "f_d", "f_a", "SUPPORTS", "supports", 50)
  ])
  return server
})

const explore = (baseUrl: string, query: string) =>
  Effect.map(get(`${baseUrl}/v1/explore?user_id=bob&${query}`), (r) => ({ status: r.status, body: r.body as Explored }))
const edgeIds = (body: Explored) => body.edges.map((edge) => edge.edge_id)
const nodeIds = (body: Explored) => body.nodes.map((node) => node.id)

describe("GET /v1/explore", () => {
  it.scoped("depth 1 walks the start's edges both ways and crosses entities in the same level; depth 2 one level further", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* seededGraph
      const one = yield* explore(baseUrl, "start_id=f_a")
      expect(one.status).toBe(200)
      expect(one.body).toMatchObject({ user_id: "bob", start_id: "f_a", start_type: "memory", count: { nodes: 3, edges: 5 } })
      // Level 1 by created_at, then edge_id: e4 comes through the entity, e6 points at the start.
      expect(edgeIds(one.body)).toEqual(["e4", "e6", "e1", "e3", "e5"])
      expect(nodeIds(one.body)).toEqual(["f_a", "f_d", "f_b"])
      const two = yield* explore(baseUrl, "start_id=f_a&depth=2")
      expect(edgeIds(two.body)).toEqual(["e4", "e6", "e1", "e3", "e5", "e2"])
      expect(nodeIds(two.body)).toEqual(["f_a", "f_d", "f_b", "f_c"])
      expect(two.body.count).toEqual({ nodes: 4, edges: 6 })
      // The same request answers the same, byte for byte.
      expect((yield* explore(baseUrl, "start_id=f_a&depth=2")).body).toEqual(two.body)
      expect(two.body.edges.find((edge) => edge.edge_id === "e5")).toEqual({
        edge_id: "e5",
        user_id: "bob",
        src_fact_id: "f_a",
        dst_id: "span_s1_1",
        edge_type: "EVIDENCES",
        predicate_raw: "",
        predicate_canonical: "",
        confidence: 0.5,
        metadata: { note: "seed" },
        created_at: 400.25
      })
      expect(two.body.edges.find((edge) => edge.edge_id === "e1")).toMatchObject({ predicate_raw: "supersedes", predicate_canonical: "supersedes", metadata: {} })
      // Nodes are cards of any status; seeded facts have no source span, so content is the statement.
      expect(two.body.nodes.find((node) => node.id === "f_c")).toMatchObject({
        fact_id: "f_c",
        evidence_id: "ev_fact:f_c",
        content: "Bob met Xavier in 2019.",
        content_preview_source: "FactEvent",
        content_preview_is_source_excerpt: false,
        status: "superseded",
        version_status: "superseded",
        turn_id: "",
        actions: [{ tool: "memory.tool.result", memory_id: "f_c" }]
      })
    }))

  it.scoped("limit cuts the edges after the level that reached it; count.edges keeps how many were found", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* seededGraph
      const cut = yield* explore(baseUrl, "start_id=f_a&depth=3&limit=2")
      expect(edgeIds(cut.body)).toEqual(["e4", "e6"])
      expect(cut.body.count).toEqual({ nodes: 2, edges: 5 })
      expect(cut.body.count.edges).toBeGreaterThan(cut.body.edges.length)
      expect(nodeIds(cut.body)).toEqual(["f_a", "f_d"])
    }))

  it.scoped("scope keys narrow: a fact stamped for another agent is neither a node nor walked through", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* seededGraph
      const planner = yield* explore(baseUrl, "start_id=f_a&depth=2&agent_id=planner")
      expect(edgeIds(planner.body)).toEqual(["e1", "e3", "e5", "e2"])
      expect(nodeIds(planner.body)).toEqual(["f_a", "f_b", "f_c"])
      expect(nodeIds((yield* explore(baseUrl, "start_id=f_a&agent_id=coder")).body)).toEqual(["f_a", "f_d", "f_b"])
      expect((yield* explore(baseUrl, "start_id=f_d&agent_id=planner")).body).toMatchObject({ nodes: [], edges: [], count: { nodes: 0, edges: 0 } })
    }))

  it.scoped("an unknown start or user is 200 and empty (no store created); bounds are 422", () =>
    Effect.gen(function*() {
      const server = yield* seededGraph
      const { baseUrl } = server
      const empty = { user_id: "bob", start_id: "nope", start_type: "memory", count: { nodes: 0, edges: 0 }, nodes: [], edges: [] }
      expect(yield* explore(baseUrl, "start_id=nope")).toEqual({ status: 200, body: empty })
      const ghost = yield* get(`${baseUrl}/v1/explore?user_id=ghost&start_id=f_a`)
      expect(ghost).toMatchObject({ status: 200, body: { nodes: [], count: { nodes: 0, edges: 0 } } })
      expect(yield* userRows(server).users).not.toContain("ghost")
      for (const query of ["start_id=f_a&depth=4", "start_id=f_a&depth=0", "start_id=f_a&limit=0", "start_id=f_a&limit=101", "start_id=", "depth=1"]) {
        const response = yield* explore(baseUrl, query)
        expect(response.status, query).toBe(422)
        expect(response.body, query).toMatchObject({ code: "validation_error" })
      }
      expect((yield* get(`${baseUrl}/v1/explore?user_id=..&start_id=f_a`)).body).toMatchObject({ code: "invalid_scope" })
    }))

  it.scoped("a purged memory takes its edges with it", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* serverWithLlm({ SERVICE_ALLOW_PURGE: "true" })
      yield* ingest(baseUrl, { session_id: "s1", messages: [{ content: "I live in Paris." }] })
      yield* ingest(baseUrl, { session_id: "s2", messages: [{ content: "I live in Berlin." }] })
      const timeline = (yield* get(`${baseUrl}/v1/entity_timeline?user_id=alice&entity_id=user`)).body as { items: Array<Card> }
      const [paris, berlin] = timeline.items.map((item) => item.id)
      const url = `${baseUrl}/v1/explore?user_id=alice&start_id=${berlin}`
      const before = (yield* get(url)).body as Explored
      expect(before.edges).toContainEqual(expect.objectContaining({ src_fact_id: berlin, dst_id: paris, edge_type: "SUPERSEDES" }))
      expect(nodeIds(before)).toContain(paris)
      expect((yield* rawFetch(`${baseUrl}/v1/memories/${paris}?user_id=alice&purge=true`, { method: "DELETE", headers: authHeaders() })).status).toBe(200)
      const after = (yield* get(url)).body as Explored
      expect(after.edges.some((edge) => edge.src_fact_id === paris || edge.dst_id === paris)).toBe(false)
      expect(nodeIds(after)).toEqual([berlin])
    }))
})

describe("GET /v1/entity_timeline", () => {
  it.scoped("matches names ignoring case and accents, as a substring; oldest first; every status marked", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* serverWithLlm()
      yield* ingest(baseUrl, { session_id: "s1", session_time: "2023-01-10", messages: [{ content: "I live in Paris." }] })
      yield* ingest(baseUrl, { session_id: "s2", session_time: "2024-02-01", messages: [{ content: "I live in Berlin." }] })
      yield* ingest(baseUrl, {
        session_id: "s3",
        session_time: "2024-03-01",
        messages: [{ content: "I visited Zürich in 2021." }, { content: "I studied in Lyon in 2015." }]
      })
      const timeline = (entity: string, extra = "") =>
        Effect.map(get(`${baseUrl}/v1/entity_timeline?user_id=alice&entity_id=${encodeURIComponent(entity)}${extra}`), (r) => r.body as { entity_id: string; count: number; items: Array<Card> })
      const user = yield* timeline("USER", "&unknown_param=1")
      // Undated first in insertion order, then by date.
      expect(user.items.map((item) => item.predicate_raw)).toEqual([
        "The user lives in Paris.",
        "The user lives in Berlin.",
        "The user studied in Lyon in 2015.",
        "The user visited Zürich in 2021."
      ])
      expect(user).toMatchObject({ entity_id: "USER", count: 4 })
      const [paris, berlin] = user.items
      expect(paris).toMatchObject({ status: "superseded", version_status: "superseded", superseded_by: berlin!.id, valid_until: "2024-02-01" })
      expect(berlin).toMatchObject({
        fact_id: berlin!.id,
        evidence_id: `ev_fact:${berlin!.id}`,
        source_span_ids: ["span_s2_1"],
        content: "I live in Berlin.",
        content_preview: "I live in Berlin.",
        content_preview_source: "SourceSpan",
        content_preview_truncated: false,
        content_preview_is_source_excerpt: true,
        extracted_support_text: "The user lives in Berlin.",
        kind: "state",
        status: "active",
        version_status: "current",
        superseded_by: null,
        session_id: "s2",
        turn_id: "s2_turn_1",
        predicate_canonical: "lives_in",
        entity_roles: { location: ["Berlin"], subject: ["user"] },
        confidence: 0.9,
        actions: [{ tool: "memory.tool.result", memory_id: berlin!.id }]
      })
      for (const name of ["zurich", "ZÜR", "uric"]) {
        expect((yield* timeline(name)).items.map((item) => item.predicate_raw), name).toEqual(["The user visited Zürich in 2021."])
      }
      expect(yield* timeline("Atlantis")).toEqual({ user_id: "alice", entity_id: "Atlantis", items: [], count: 0 })
      expect(yield* timeline("!!")).toMatchObject({ items: [], count: 0 })
    }))

  it.scoped("scope keys narrow; an unknown user is empty without a store; entity_id is required", () =>
    Effect.gen(function*() {
      const server = yield* seededGraph
      const { baseUrl } = server
      const ids = (query: string) =>
        Effect.map(get(`${baseUrl}/v1/entity_timeline?${query}`), (r) => (r.body as { items: Array<Card> }).items.map((item) => item.id))
      expect(yield* ids("user_id=bob&entity_id=CAFE")).toEqual(["f_a", "f_d"])
      expect(yield* ids("user_id=bob&entity_id=cafe&agent_id=planner")).toEqual(["f_a"])
      expect(yield* ids("user_id=ghost&entity_id=cafe")).toEqual([])
      expect(yield* userRows(server).users).not.toContain("ghost")
      for (const query of ["user_id=bob", "user_id=bob&entity_id="]) {
        expect((yield* get(`${baseUrl}/v1/entity_timeline?${query}`)).body, query).toMatchObject({ code: "validation_error" })
      }
    }))
})

describe("POST /v1/refine", () => {
  const coffee = Effect.gen(function*() {
    const server = yield* serverWithLlm()
    yield* ingest(server.baseUrl, { session_id: "s1", session_time: "2023-03-01", messages: [{ content: "I drink coffee with Anna every morning." }] })
    yield* ingest(server.baseUrl, { session_id: "s2", session_time: "2024-06-15", messages: [{ content: "I probably drink too much coffee." }] })
    yield* ingest(server.baseUrl, { session_id: "s3", session_time: "2024-07-01", messages: [{ content: "I bought coffee beans in Berlin yesterday." }] })
    const refine = (body: Record<string, unknown>) =>
      Effect.map(sendJson(`${server.baseUrl}/v1/refine`, { user_id: "alice", query: "coffee", ...body }), (r) => ({ status: r.status, body: r.body as Refined }))
    const ids = (body: Record<string, unknown>) => Effect.map(refine(body), (r) => r.body.items.map((item) => item.evidence_id).sort())
    const facts = (body: Record<string, unknown>) =>
      Effect.map(refine(body), (r) => r.body.items.flatMap((item) => item.fact_id === null ? [] : [item.predicate_raw]).sort())
    return { ...server, refine, ids, facts }
  })

  it.scoped("without filters: every candidate, cut to top_k, with paging fields, default filters and next tools; no LLM call", () =>
    Effect.gen(function*() {
      const { refine, stub } = yield* coffee
      const chats = stub.chatCalls()
      const { body, status } = yield* refine({ top_k: 2 })
      expect(status).toBe(200)
      expect(body).toMatchObject({ user_id: "alice", query: "coffee", offset: 0, next_offset: 2, has_more: true, total_candidates: 6 })
      expect(body.items).toHaveLength(2)
      expect((body as unknown as { degraded: unknown }).degraded).toBeInstanceOf(Array)
      expect((body as unknown as { filters: unknown }).filters).toEqual({
        source_types: [], event_types: [], modalities: [], kinds: [], source_roles: [],
        session_id: "", entity: "", entity_roles: {}, status: [], quantity_units: [],
        occurred_from: null, occurred_to: null, created_from: null, created_to: null, valid_from: null, valid_to: null,
        min_confidence: null, include_terms: [], exclude_terms: []
      })
      expect(body.available_next_tools.map((tool) => tool.name)).toEqual([
        "memory.tool.search-more",
        "memory.tool.refine",
        "memory.tool.raw-search",
        "memory.tool.event-timeline",
        "memory.tool.evidence-count",
        "memory.tool.entity-timeline"
      ])
      const all = (yield* refine({})).body
      expect(all).toMatchObject({ next_offset: 6, has_more: false, total_candidates: 6 })
      expect(all.available_next_tools[0]!.name).toBe("memory.tool.refine")
      expect(stub.chatCalls()).toBe(chats)
    }))

  it.scoped("entity, session_id and min_confidence each keep only what matches", () =>
    Effect.gen(function*() {
      const { ids, facts, refine } = yield* coffee
      const anna = yield* refine({ entity: "ANNA" })
      expect(anna.body).toMatchObject({ total_candidates: 1, has_more: false, next_offset: 1 })
      const card = anna.body.items[0]!
      expect(card).toMatchObject({
        fact_id: card.id,
        predicate_raw: "The user drinks coffee with Anna every morning.",
        content: "I drink coffee with Anna every morning.",
        content_preview_source: "SourceSpan",
        session_id: "s1",
        turn_id: "s1_turn_1",
        role: "user",
        version_status: "current",
        entity_roles: { object: ["Anna"], subject: ["user"] },
        rank: { tier: 1 }
      })
      expect(card.actions).toEqual([
        { tool: "memory.tool.result", memory_id: card.id },
        { tool: "memory.tool.explore", start_id: card.id, start_type: "memory" },
        { tool: "memory.tool.session", session_id: "s1" }
      ])
      expect((anna.body as unknown as { filters: { entity: string } }).filters.entity).toBe("ANNA")
      const s2 = (yield* refine({ session_id: "s2" })).body.items
      expect(s2.map((item) => item.evidence_id).sort()).toEqual([`ev_fact:${s2.find((item) => item.fact_id !== null)!.fact_id}`, "ev_raw:s2_turn_1"])
      expect(s2.find((item) => item.fact_id === null)).toMatchObject({
        predicate_raw: null,
        kind: "raw_turn",
        content_preview_source: "RawTurn",
        confidence: null,
        actions: [{ tool: "memory.tool.session", session_id: "s2" }]
      })
      // Raw turns have no confidence: left out once min_confidence is set.
      expect(yield* ids({ min_confidence: 0.8 })).toHaveLength(2)
      expect(yield* facts({ min_confidence: 0.8 })).toEqual([
        "The user bought coffee beans in Berlin yesterday.",
        "The user drinks coffee with Anna every morning."
      ])
      expect(yield* ids({ min_confidence: 0 })).toHaveLength(3)
    }))

  it.scoped("occurred_from / occurred_to are inclusive, on occurred_start else session_time, at the coarser precision", () =>
    Effect.gen(function*() {
      const { ids, facts } = yield* coffee
      expect(yield* facts({ occurred_from: "2024-06-20" })).toEqual(["The user bought coffee beans in Berlin yesterday."])
      expect(yield* ids({ occurred_from: "2024-06-20" })).toContain("ev_raw:s3_turn_1")
      expect(yield* ids({ occurred_from: "2024-06-20" })).toHaveLength(2)
      expect(yield* ids({ occurred_to: "2023-12-31" })).toHaveLength(2)
      expect(yield* facts({ occurred_to: "2023-12-31" })).toEqual(["The user drinks coffee with Anna every morning."])
      // The fact of s3 happened on 2024-06-30 (yesterday), its turn was said on 2024-07-01.
      const june = yield* ids({ occurred_from: "2024", occurred_to: "2024-06" })
      expect(june).toHaveLength(3)
      expect(june).not.toContain("ev_raw:s3_turn_1")
      expect(yield* ids({ occurred_from: "2024-06-30", occurred_to: "2024-06-30" })).toHaveLength(1)
    }))

  it.scoped("scope keys narrow", () =>
    Effect.gen(function*() {
      const { baseUrl, ids } = yield* coffee
      yield* ingest(baseUrl, { session_id: "s4", agent_id: "planner", messages: [{ content: "I roast coffee at the office." }] })
      expect(yield* ids({ session_id: "s4" })).toHaveLength(2)
      expect(yield* ids({ session_id: "s4", agent_id: "writer" })).toEqual([])
      expect(yield* ids({ session_id: "s4", agent_id: "planner" })).toHaveLength(2)
      expect(yield* ids({ agent_id: "writer" })).toHaveLength(6)
    }))

  it.scoped("refuses null for entity or session_id, unknown keys, bad bounds and unreadable dates (422)", () =>
    Effect.gen(function*() {
      const { refine } = yield* coffee
      const cases: Array<[Record<string, unknown>, ReadonlyArray<string>, string]> = [
        [{ entity: null }, ["body", "entity"], "string_type"],
        [{ session_id: null }, ["body", "session_id"], "string_type"],
        [{ filters: {} }, ["body", "filters"], "extra_forbidden"],
        [{ top_k: 0 }, ["body", "top_k"], "greater_than_equal"],
        [{ top_k: 101 }, ["body", "top_k"], "less_than_equal"],
        [{ min_confidence: 1.5 }, ["body", "min_confidence"], "less_than_equal"],
        [{ occurred_from: "last week" }, ["body", "occurred_from"], "value_error"],
        [{ occurred_to: "2024-02-30" }, ["body", "occurred_to"], "value_error"],
        [{ query: "" }, ["body", "query"], "string_too_short"]
      ]
      for (const [body, loc, type] of cases) {
        const response = yield* refine(body)
        expect(response.status, JSON.stringify(body)).toBe(422)
        const errors = (response.body as unknown as { details: { errors: Array<{ loc: Array<string>; type: string }> } }).details.errors
        expect(errors[0], JSON.stringify(body)).toMatchObject({ loc, type })
      }
      expect((yield* refine({ occurred_from: "2024-02-29T10:30", min_confidence: null, occurred_to: null })).status).toBe(200)
    }))
})
