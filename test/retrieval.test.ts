import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { countTokens } from "gpt-tokenizer"
import { startProviderStub } from "../scripts/stubs/llm-providers.js"
import { authHeaders, rawFetch, startServer } from "./support/server.js"
import { seedEntities, seedFacts, userRows } from "./support/userRows.js"

const post = (url: string, body: unknown) =>
  rawFetch(url, { method: "POST", headers: { ...authHeaders(), "content-type": "application/json" }, body: JSON.stringify(body) })

interface Hit {
  readonly id: string
  readonly content: string
  readonly score: number
  readonly session_id: string | null
  readonly occurred_at: string | null
  readonly metadata: Record<string, unknown> & { routes: Array<{ route: string }> }
}
interface SearchBody {
  readonly query: string
  readonly hits: Array<Hit>
  readonly degraded: Array<{ code: string; details: { channel: string } }>
}

const conversation = [
  { content: "Caroline: I went to the LGBTQ support group yesterday and it was powerful." },
  { role: "assistant", content: "Melanie: That sounds wonderful. How did it feel?" },
  { content: "Caroline: I felt accepted. I am thinking about adopting a child." },
  { role: "assistant", content: "Melanie: We went camping in the mountains with the kids last week." },
  { content: "Caroline: Camping sounds lovely, I should try it." }
]

/** A user with one conversation on 8 May 2023, another on 2 June 2023, and a few facts. */
const seeded = (env: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const server = yield* startServer(env)
    yield* post(`${server.baseUrl}/v1/memories`, { user_id: "alice", session_id: "s1", session_time: "1:56 pm on 8 May, 2023", infer: false, async_mode: false, messages: conversation })
    yield* post(`${server.baseUrl}/v1/memories`, {
      user_id: "alice",
      session_id: "s2",
      session_time: "2023-06-02",
      agent_id: "coach",
      infer: false,
      async_mode: false,
      messages: [{ content: "Caroline: I ran a half marathon this morning." }, { content: "Caroline: My painting class starts next week." }]
    })
    yield* seedFacts(server, "alice", [
      { fact_id: "fact_paint", content: "Caroline takes a painting class." },
      { fact_id: "fact_old", content: "Caroline lives in Boston.", status: "superseded" },
      { fact_id: "fact_gone", content: "Caroline owns a boat.", status: "archived" },
      { fact_id: "fact_same", content: "Caroline: I ran a half marathon this morning." },
      { fact_id: "fact_coder", content: "Caroline writes Rust code.", agent_id: "coder" }
    ])
    yield* seedEntities(server, "alice", [
      { entity_id: "entity_boston", name: "Boston", normalized_name: "boston" },
      { entity_id: "entity_rust", name: "Rust", normalized_name: "rust" }
    ])
    yield* userRows(server).insert("alice", "fact_entity_roles", [
      { fact_id: "fact_old", entity_id: "entity_boston", role: "location" },
      { fact_id: "fact_coder", entity_id: "entity_rust", role: "object" }
    ])
    return server
  })

const search = (baseUrl: string, body: Record<string, unknown>) =>
  Effect.map(post(`${baseUrl}/v1/search`, { user_id: "alice", ...body }), (response) => ({ status: response.status, body: response.body as SearchBody }))

describe("POST /v1/search", () => {
  it.scoped("finds raw turns by stemmed words, as hits in the contract's shape, and lists the vector leg as degraded", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* seeded()
      const { body, status } = yield* search(baseUrl, { query: "Who adopted a child?" })
      expect(status).toBe(200)
      expect(body.query).toBe("Who adopted a child?")
      const top = body.hits[0]!
      expect(top).toMatchObject({
        id: "ev_raw:s1_turn_3",
        content: "Caroline: I felt accepted. I am thinking about adopting a child.",
        session_id: "s1",
        occurred_at: "2023-05-08T13:56"
      })
      expect(top.metadata).toMatchObject({ evidence_id: "ev_raw:s1_turn_3", fact_id: null, kind: "raw_turn", source_turn_id: "s1_turn_3", unstructured_source: true })
      expect(top.metadata.routes.map((r) => r.route)).toContain("lexical_turns")
      expect(body.degraded.map((d) => [d.code, d.details.channel])).toEqual([["vector_route_failed", "fact_events"], ["vector_route_failed", "raw_turns"]])
    }))

  it.scoped("returns facts by their id; never archived ones; superseded ones only when asked", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* seeded()
      const painting = yield* search(baseUrl, { query: "painting class" })
      expect(painting.body.hits[0]?.id).toBe("fact_paint")
      expect(painting.body.hits[0]?.metadata).toMatchObject({ evidence_id: "ev_fact:fact_paint", fact_id: "fact_paint", version_status: "current" })
      const ids = (body: SearchBody) => body.hits.map((h) => h.id)
      expect(ids((yield* search(baseUrl, { query: "boat" })).body)).not.toContain("fact_gone")
      expect(ids((yield* search(baseUrl, { query: "Boston" })).body)).not.toContain("fact_old")
      const withOld = yield* search(baseUrl, { query: "Boston", include_superseded: true })
      expect(withOld.body.hits.find((h) => h.id === "fact_old")?.metadata).toMatchObject({ version_status: "superseded", status: "superseded" })
    }))

  it.scoped("merges a fact and a turn that say the same into one hit, the fact, with both routes", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* seeded()
      const { body } = yield* search(baseUrl, { query: "half marathon" })
      const matching = body.hits.filter((h) => h.id === "fact_same" || h.id === "ev_raw:s2_turn_1")
      expect(matching.map((h) => h.id)).toEqual(["fact_same"])
      expect(matching[0]!.metadata.routes.map((r) => r.route).sort()).toEqual(["lexical_facts", "lexical_turns"])
    }))

  it.scoped("finds facts of the entities a query names (entity leg)", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* seeded()
      const { body } = yield* search(baseUrl, { query: "anything about rust?" })
      const hit = body.hits.find((h) => h.id === "fact_coder")
      expect(hit?.metadata.routes.map((r) => r.route)).toContain("entity")
    }))

  it.scoped("finds what happened on a date the query names (time leg)", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* seeded()
      const { body } = yield* search(baseUrl, { query: "what happened on 2 June 2023", top_k: 5 })
      const timed = body.hits.filter((h) => h.metadata.routes.some((r) => r.route === "time"))
      expect(timed.map((h) => h.session_id)).toContain("s2")
      expect(timed.every((h) => h.session_id === "s2" || h.id.startsWith("fact_"))).toBe(true)
    }))

  it.scoped("brings in the turns around the best lexical turns (neighbourhood leg)", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* seeded()
      // Only turn 3 says "adopting"; the turns either side of it come along, after it.
      const { body } = yield* search(baseUrl, { query: "adopting", top_k: 5 })
      const ids = body.hits.map((h) => h.id)
      expect(ids[0]).toBe("ev_raw:s1_turn_3")
      for (const neighbour of ["ev_raw:s1_turn_1", "ev_raw:s1_turn_2", "ev_raw:s1_turn_4", "ev_raw:s1_turn_5"]) {
        expect(body.hits.find((h) => h.id === neighbour)?.metadata.routes.map((r) => r.route)).toEqual(["neighbourhood"])
      }
      // The other session is out of reach.
      expect(ids.filter((id) => id.startsWith("ev_raw:s2_"))).toEqual([])
    }))

  it.scoped("ranks the turns of the person a question names above another speaker's better word match", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const filler = (speaker: string) => Array.from({ length: 6 }, (_, i) => ({ content: `${speaker}: small talk about the weather, day ${i}` }))
      const ingest = (sessionId: string, messages: ReadonlyArray<{ content: string }>) =>
        post(`${baseUrl}/v1/memories`, { user_id: "alice", session_id: sessionId, infer: false, async_mode: false, messages })
      yield* ingest("s1", [{ content: "Melanie: camping, camping, we love camping" }, ...filler("Caroline"), ...filler("Melanie")])
      yield* ingest("s2", [...filler("Melanie"), { content: "Caroline: I tried camping once by a lake" }, ...filler("Caroline")])
      const first = (query: string) => Effect.map(search(baseUrl, { query }), ({ body }) => body.hits[0]?.content)
      expect(yield* first("Did Caroline go camping?")).toBe("Caroline: I tried camping once by a lake")
      expect(yield* first("Did Melanie go camping?")).toBe("Melanie: camping, camping, we love camping")
      // Nobody named: the better word match first.
      expect(yield* first("Who went camping?")).toBe("Melanie: camping, camping, we love camping")
    }))

  it.scoped("reaches a named speaker's turn that forty others outrank by their words, whatever top_k is", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const ingest = (sessionId: string, messages: ReadonlyArray<string>) =>
        post(`${baseUrl}/v1/memories`, { user_id: "alice", session_id: sessionId, infer: false, async_mode: false, messages: messages.map((content) => ({ content })) })
      // One session each, so that no turn lends to another.
      for (let i = 0; i < 40; i++) yield* ingest(`trip${i}`, [`Melanie: camping camping camping with Caroline, trip ${i}`])
      yield* ingest("weather", Array.from({ length: 80 }, (_, i) => `Melanie: small talk about the weather, day ${i}`))
      yield* ingest("once", ["Caroline: I went camping once with friends, long ago"])
      for (const top_k of [1, 10]) {
        const { body } = yield* search(baseUrl, { query: "Did Caroline go camping?", top_k })
        expect(body.hits[0]?.content).toBe("Caroline: I went camping once with friends, long ago")
        expect(body.hits[0]?.metadata.routes).toEqual([expect.objectContaining({ route: "lexical_turns", rank: 41 })])
      }
    }))

  it.scoped("leaves out the time leg's facts or turns when the date holds more of them than it returns", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const { baseUrl } = server
      const ingest = (sessionId: string, sessionTime: string, count: number) =>
        post(`${baseUrl}/v1/memories`, {
          user_id: "alice",
          session_id: sessionId,
          session_time: sessionTime,
          infer: false,
          async_mode: false,
          messages: Array.from({ length: count }, (_, i) => ({ content: `Caroline: note ${i} of ${sessionId}` }))
        })
      yield* ingest("busy", "2023-07-01", 70)
      yield* ingest("quiet", "2023-08-15", 3)
      yield* seedFacts(server, "alice", [{ fact_id: "fact_july", content: "Caroline moved flat.", occurred_at: "2023-07-01T09:00:00", session_id: "busy" }])
      const timed = (query: string) =>
        Effect.map(search(baseUrl, { query }), ({ body }) => body.hits.filter((h) => h.metadata.routes.some((r) => r.route === "time")).map((h) => h.id))
      // The date's 70 turns stay out; its one fact is still found by it.
      expect(yield* timed("what happened on 1 July 2023")).toEqual(["fact_july"])
      expect(yield* timed("what happened on 15 August 2023")).toEqual(["ev_raw:quiet_turn_1", "ev_raw:quiet_turn_2", "ev_raw:quiet_turn_3"])
    }))

  it.scoped("scope keys narrow: items stamped with another agent are left out", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* seeded()
      const coach = yield* search(baseUrl, { query: "Rust code marathon", agent_id: "coach" })
      expect(coach.body.hits.map((h) => h.id)).not.toContain("fact_coder")
      expect(coach.body.hits.map((h) => h.id)).toContain("fact_same")
      const coder = yield* search(baseUrl, { query: "Rust code marathon", agent_id: "coder" })
      expect(coder.body.hits.map((h) => h.id)).toContain("fact_coder")
      expect(coder.body.hits.some((h) => h.session_id === "s2" && h.id.startsWith("ev_raw"))).toBe(false)
    }))

  it.scoped("top_k is 1..100, 10 by default, and bounds the hits", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* seeded()
      const all = (yield* search(baseUrl, { query: "Caroline", top_k: 100 })).body.hits.length
      expect(all).toBeGreaterThan(2)
      expect((yield* search(baseUrl, { query: "Caroline" })).body.hits.length).toBe(Math.min(10, all))
      expect((yield* search(baseUrl, { query: "Caroline", top_k: 2 })).body.hits.length).toBe(2)
      for (const topK of [0, 101]) expect((yield* search(baseUrl, { query: "x", top_k: topK })).status).toBe(422)
      expect((yield* search(baseUrl, { query: "" })).status).toBe(422)
    }))

  it.scoped("an unknown user has no hits, and the search creates no store", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const { baseUrl } = server
      const { body } = yield* Effect.map(post(`${baseUrl}/v1/search`, { user_id: "ghost", query: "anything" }), (r) => ({ body: r.body as SearchBody }))
      expect(body.hits).toEqual([])
      expect(body.degraded).toHaveLength(2)
      expect(yield* userRows(server).users).not.toContain("ghost")
    }))
})

interface ContextBody {
  readonly text: string
  readonly citations: Array<string>
  readonly evidence: Array<Record<string, unknown>>
  readonly degraded: Array<unknown>
}

describe("GET and POST /v1/context", () => {
  it.scoped("renders one cited card per line, in the contract's order, citations exactly the rendered cards", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* seeded()
      const response = yield* post(`${baseUrl}/v1/context`, { user_id: "alice", query: "camping with the kids" })
      const body = response.body as ContextBody
      const lines = body.text.split("\n")
      expect(lines.length).toBe(body.citations.length)
      expect(body.citations).toEqual(body.evidence.map((card) => card.evidence_id))
      expect(lines[0]).toBe("- evidence_id=ev_raw:s1_turn_4 support=Melanie: We went camping in the mountains with the kids last week. date=2023-05-08T13:56 source=s1/s1_turn_4 role=assistant expanded=False")
      expect(body.evidence[0]).toEqual({
        evidence_id: "ev_raw:s1_turn_4",
        support: "Melanie: We went camping in the mountains with the kids last week.",
        date: "2023-05-08T13:56",
        source: "s1/s1_turn_4",
        role: "assistant",
        expanded: false
      })
      expect(body.degraded).toHaveLength(2)
    }))

  it.scoped("stays within token_budget counted by a real tokenizer, and never cites what it did not render", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* seeded()
      for (const budget of [100, 150, 2000]) {
        const body = (yield* post(`${baseUrl}/v1/context`, { user_id: "alice", query: "Caroline camping painting marathon", token_budget: budget })).body as ContextBody
        const used = body.text === "" ? 0 : body.text.split("\n").reduce((sum, line) => sum + countTokens(line) + 1, 0)
        expect(used).toBeLessThanOrEqual(budget)
        expect(body.citations.length).toBe(body.text === "" ? 0 : body.text.split("\n").length)
      }
      const small = (yield* post(`${baseUrl}/v1/context`, { user_id: "alice", query: "Caroline camping painting marathon", token_budget: 100 })).body as ContextBody
      const large = (yield* post(`${baseUrl}/v1/context`, { user_id: "alice", query: "Caroline camping painting marathon", token_budget: 2000 })).body as ContextBody
      expect(small.citations.length).toBeLessThan(large.citations.length)
      expect(large.citations.slice(0, small.citations.length)).toEqual(small.citations)
    }))

  it.scoped("GET answers as POST does, refuses unknown parameters, and bounds token_budget", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* seeded()
      const viaGet = yield* rawFetch(`${baseUrl}/v1/context?user_id=alice&query=${encodeURIComponent("painting class")}&token_budget=300`, { headers: authHeaders() })
      const viaPost = yield* post(`${baseUrl}/v1/context`, { user_id: "alice", query: "painting class", token_budget: 300 })
      expect(viaGet.status).toBe(200)
      expect(viaGet.body).toEqual(viaPost.body)
      const unknown = yield* rawFetch(`${baseUrl}/v1/context?user_id=alice&query=x&mode=llm`, { headers: authHeaders() })
      expect(unknown.status).toBe(422)
      expect((unknown.body as { details: { errors: Array<unknown> } }).details.errors[0]).toMatchObject({ type: "extra_forbidden", loc: ["query", "mode"] })
      expect((yield* post(`${baseUrl}/v1/context`, { user_id: "alice", query: "x", token_budget: 99 })).status).toBe(422)
      expect((yield* post(`${baseUrl}/v1/context`, { user_id: "alice", query: "x", token_budget: 32_001 })).status).toBe(422)
    }))

  it.scoped("stored text that spells a tokenizer special token is counted as text", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      yield* post(`${baseUrl}/v1/memories`, { user_id: "eve", infer: false, async_mode: false, messages: [{ content: "Eve wrote <|endoftext|> in her diary." }] })
      const response = yield* post(`${baseUrl}/v1/context`, { user_id: "eve", query: "diary" })
      expect(response.status).toBe(200)
      expect((response.body as ContextBody).text).toContain("<|endoftext|>")
    }))

  it.scoped("a card too long to tokenize cheaply (a huge session id in its evidence id) is priced at its bytes, at once", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const sessionId = "s".repeat(100_000)
      yield* post(`${baseUrl}/v1/memories`, { user_id: "bob", session_id: sessionId, infer: false, async_mode: false, messages: [{ content: "Bob keeps bees." }] })
      yield* post(`${baseUrl}/v1/memories`, { user_id: "bob", infer: false, async_mode: false, messages: [{ content: "Bob sells honey from his bees." }] })
      const body = (yield* post(`${baseUrl}/v1/context`, { user_id: "bob", query: "bees", token_budget: 32_000 })).body as ContextBody
      // Tokenized, the line would fit the budget (after about 15 s of work); priced at its
      // 200,000 bytes it is over any budget, so rendering stops there, as for any card that does not fit.
      expect(body.evidence.every((card) => !String(card.evidence_id).includes(sessionId))).toBe(true)
    }))

  it.scoped("a line break in a session id is escaped in the text, so each card keeps one line; citations keep the id", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      yield* post(`${baseUrl}/v1/memories`, { user_id: "ida", session_id: "trip\nday-2\r\u2028", infer: false, async_mode: false, messages: [{ content: "Ida hiked to the glacier." }] })
      const body = (yield* post(`${baseUrl}/v1/context`, { user_id: "ida", query: "glacier" })).body as ContextBody
      expect(body.citations).toEqual(["ev_raw:trip\nday-2\r\u2028_turn_1"])
      expect(body.text.split(/\r\n|\r|\n|\u2028/)).toHaveLength(1)
      expect(body.text).toContain("evidence_id=ev_raw:trip\\nday-2\\r\\u2028_turn_1 ")
      expect(body.text).toContain("source=trip\\nday-2\\r\\u2028/trip\\nday-2\\r\\u2028_turn_1 ")
    }))

  it.scoped("an empty store gives an empty block", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const body = (yield* post(`${baseUrl}/v1/context`, { user_id: "nobody", query: "anything" })).body as ContextBody
      expect(body).toMatchObject({ text: "", citations: [], evidence: [] })
    }))
})

describe("no LLM call on recall", () => {
  it.scoped("search and context reach the configured provider for embeddings only, never for a chat call", () =>
    Effect.gen(function*() {
      const stub = yield* Effect.acquireRelease(Effect.promise(() => startProviderStub({ provider: "openai", dimensions: 32 })), (s) => Effect.promise(() => s.close()))
      const { baseUrl } = yield* seeded({ SERVICE_LLM_API_KEY: "sk-test", SERVICE_LLM_BASE_URL: stub.url })
      yield* search(baseUrl, { query: "Caroline adopting" })
      yield* post(`${baseUrl}/v1/context`, { user_id: "alice", query: "Caroline adopting" })
      yield* rawFetch(`${baseUrl}/v1/context?user_id=alice&query=camping`, { headers: authHeaders() })
      expect(stub.requests.length).toBeGreaterThan(0)
      expect(stub.requests.filter((r) => !(r.method === "POST" && r.path === "/v1/embeddings"))).toEqual([])
    }))
})
