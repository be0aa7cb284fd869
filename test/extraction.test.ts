import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { stubEmbedding } from "../scripts/stubs/embedding.js"
import { chatRequests, llmEnv, providerStub } from "./support/llm.js"
import { authHeaders, rawFetch, type RunningServer, sendJson, startServer, waitForJob } from "./support/server.js"
import { userRows } from "./support/userRows.js"

interface MemoryView {
  readonly id: string
  readonly content: string
  readonly kind: string
  readonly status: string
  readonly session_id: string
  readonly occurred_at: string | null
  readonly valid_from: string | null
  readonly valid_until: string | null
  readonly agent_id: string | null
  readonly metadata: Record<string, unknown>
}

const ingest = (baseUrl: string, body: Record<string, unknown>) =>
  sendJson(`${baseUrl}/v1/memories`, { user_id: "alice", async_mode: false, ...body })

const memories = (baseUrl: string) =>
  Effect.map(rawFetch(`${baseUrl}/v1/memories?user_id=alice`, { headers: authHeaders() }), (r) => (r.body as { memories: Array<MemoryView> }).memories)

const events = (baseUrl: string) =>
  Effect.map(rawFetch(`${baseUrl}/v1/events?user_id=alice`, { headers: authHeaders() }), (r) => (r.body as { events: Array<Record<string, unknown>> }).events)

/** The spans a fact was taken from, in order. */
const sourcesOf = (server: RunningServer, factId: string) =>
  userRows(server).select("alice", "fact_sources", { columns: ["span_id"], where: { fact_id: factId }, orderBy: "span_id" })

const serverWithLlm = Effect.gen(function*() {
  const stub = yield* providerStub("openai")
  const server = yield* startServer(llmEnv(stub))
  return { ...server, stub }
})

describe("POST /v1/memories with infer=true", () => {
  it.scoped("extracts atomic facts with kind, resolved dates, provenance and entities", () =>
    Effect.gen(function*() {
      const server = yield* serverWithLlm
      const { baseUrl, stub } = server
      const response = yield* ingest(baseUrl, {
        session_id: "s1",
        session_time: "2023-05-08T13:56:00",
        messages: [
          { role: "user", content: "I moved to Berlin last year. Do you like it?" },
          { role: "assistant", content: "That sounds exciting." },
          { role: "user", content: "I love hiking in the Alps." }
        ]
      })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ session_id: "s1", facts_extracted: 2, spans_written: 3, turns_written: 3 })
      const listed = yield* memories(baseUrl)
      expect(listed.map((m) => m.content)).toEqual(["The user moved to Berlin last year.", "The user loves hiking in the Alps."])
      const [moved, hiking] = listed
      expect(moved).toMatchObject({ kind: "event", status: "active", session_id: "s1", occurred_at: "2022", valid_from: "2022" })
      expect(moved!.metadata).toMatchObject({
        support_text: "I moved to Berlin last year. Do you like it?",
        time_precision: "year",
        time_source: "extracted",
        extracted_by: { provider: "openai", model: "gpt-4o-mini" }
      })
      // No date in the statement: it holds from the session on.
      expect(hiking).toMatchObject({ kind: "preference", occurred_at: null, valid_from: "2023-05-08T13:56:00" })
      const rows = userRows(server)
      expect(yield* sourcesOf(server, hiking!.id)).toEqual([{ span_id: "span_s1_3" }])
      const entities = yield* rows.select("alice", "entities", { columns: ["entity_id", "name", "profile_stale"], orderBy: "name" })
      expect(yield* rows.select("alice", "fact_entity_roles", { columns: ["entity_id", "role"], where: { fact_id: moved!.id }, orderBy: "entity_id" }))
        .toEqual([{ entity_id: "entity_berlin", role: "location" }, { entity_id: "entity_user", role: "subject" }])
      expect(entities.filter((entity) => ["entity_berlin", "entity_user"].includes(String(entity.entity_id))).map((entity) => entity.name))
        .toEqual(["Berlin", "user"])
      expect(yield* rows.select("alice", "edges", { columns: ["dst_id", "edge_type"], where: { src_fact_id: moved!.id }, orderBy: "dst_id" }))
        .toEqual([{ dst_id: "entity_berlin", edge_type: "MENTIONS" }, { dst_id: "entity_user", edge_type: "SUBJECT_OF" }])
      expect(new Set(entities.map((entity) => entity.profile_stale))).toEqual(new Set([1]))
      // One structured extraction call, in the provider's JSON-schema mode, and nothing to reconcile yet.
      const calls = chatRequests(stub)
      expect(calls).toHaveLength(1)
      expect(calls[0]!.body).toMatchObject({ response_format: { type: "json_schema", json_schema: { name: "memory_extraction", strict: true } } })
      const history = yield* events(baseUrl)
      expect(history.map((event) => [event.type, event.memory_id])).toEqual([
        ["memory_add", null],
        ["memory_add", hiking!.id],
        ["memory_add", moved!.id]
      ])
      expect(history[0]).toMatchObject({ reason: "3 turns stored, 2 facts extracted" })
    }))

  it.scoped("an entity name longer than 200 characters, as written or normalized, is left out, its fact kept with its other entities, on either backend", () =>
    Effect.gen(function*() {
      const server = yield* serverWithLlm
      // The stub names an entity after a run of capitalised words: here one of about 3,000 characters,
      // varied enough that PostgreSQL cannot compress its index entries under their 2704 bytes.
      let seed = 7
      const letter = () => String.fromCharCode(97 + ((seed = (seed * 1103515245 + 12345) % 2147483648) % 26))
      const longName = Array.from({ length: 300 }, () => `Z${Array.from({ length: 8 }, letter).join("")}`).join(" ")
      const response = yield* ingest(server.baseUrl, { session_id: "long", messages: [{ content: `I visited ${longName} with my sister.` }] })
      expect(response.status).toBe(200)
      expect(response.body).toMatchObject({ facts_extracted: 1 })
      const [fact] = yield* memories(server.baseUrl)
      expect(fact!.content).toContain(longName)
      const rows = userRows(server)
      expect(yield* rows.select("alice", "fact_entity_roles", { columns: ["entity_id", "role"], where: { fact_id: fact!.id }, orderBy: "entity_id" }))
        .toEqual([{ entity_id: "entity_user", role: "subject" }])
      // 101 characters as written, 1,801 once normalized: each U+FDFA decomposes into 18.
      const ligatures = `Z${"\ufdfa".repeat(100)}`
      expect((yield* ingest(server.baseUrl, { session_id: "ligatures", messages: [{ content: `I visited ${ligatures} with my sister.` }] })).status).toBe(200)
      const ids = (yield* rows.select("alice", "entities", { columns: ["entity_id"] })).map((entity) => String(entity.entity_id))
      expect(ids.filter((id) => id.length > "entity_".length + 200)).toEqual([])
    }))

  it.scoped("a later session that changes a fact supersedes it, with a reason naming the session", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* serverWithLlm
      yield* ingest(baseUrl, { session_id: "s1", session_time: "2023-01-10", messages: [{ content: "I live in Paris." }] })
      const [paris] = yield* memories(baseUrl)
      const response = yield* ingest(baseUrl, { session_id: "s2", session_time: "2024-02-01", messages: [{ content: "I live in Berlin." }] })
      expect(response.body).toMatchObject({ facts_extracted: 1 })
      const current = yield* memories(baseUrl)
      expect(current.map((m) => m.content)).toEqual(["The user lives in Berlin."])
      const old = (yield* rawFetch(`${baseUrl}/v1/memories/${paris!.id}?user_id=alice`, { headers: authHeaders() })).body as MemoryView
      expect(old).toMatchObject({ status: "superseded", valid_until: "2024-02-01" })
      const [supersede] = (yield* events(baseUrl)).filter((event) => event.type === "memory_supersede")
      expect(supersede).toMatchObject({ memory_id: paris!.id, session_id: "s2", details: { action: "update", new_memory_id: current[0]!.id } })
      expect(supersede!.reason).toMatch(/^updated by session s2: /)
    }))

  it.scoped("a repeated statement is merged into the fact that says it: no second copy, its sources added", () =>
    Effect.gen(function*() {
      const server = yield* serverWithLlm
      const { baseUrl } = server
      yield* ingest(baseUrl, { session_id: "s1", messages: [{ content: "I work at Acme Corp." }] })
      const again = yield* ingest(baseUrl, { session_id: "s2", messages: [{ content: "I work at Acme Corp." }] })
      expect(again.body).toMatchObject({ facts_extracted: 1 })
      const listed = yield* memories(baseUrl)
      expect(listed).toHaveLength(1)
      expect(yield* sourcesOf(server, listed[0]!.id)).toEqual([{ span_id: "span_s1_1" }, { span_id: "span_s2_1" }])
      const [merge] = (yield* events(baseUrl)).filter((event) => event.type === "memory_supersede")
      expect(merge).toMatchObject({ memory_id: listed[0]!.id, details: { action: "duplicate_merge" } })
    }))

  it.scoped("within a session, a fact replaced by an earlier plan takes no merge: the repetition is a new fact", () =>
    Effect.gen(function*() {
      const server = yield* serverWithLlm
      const { baseUrl } = server
      yield* ingest(baseUrl, { session_id: "s1", messages: [{ content: "I work at Acme Corp." }] })
      const [acme] = yield* memories(baseUrl)
      const replacedFirst = yield* ingest(baseUrl, { session_id: "s2", messages: [{ content: "I work at Globex." }, { content: "I work at Acme Corp." }] })
      expect(replacedFirst.body).toMatchObject({ facts_extracted: 2 })
      const afterS2 = yield* memories(baseUrl)
      expect(afterS2.map((m) => m.content).sort()).toEqual(["The user works at Acme Corp.", "The user works at Globex."])
      expect(afterS2.map((m) => m.id)).not.toContain(acme!.id)
      expect(yield* sourcesOf(server, acme!.id)).toEqual([{ span_id: "span_s1_1" }])
      const globex = afterS2.find((m) => m.content === "The user works at Globex.")!
      const s2Events = (yield* events(baseUrl)).filter((event) => event.session_id === "s2").reverse()
      expect(s2Events.map((event) => [event.type, event.memory_id, (event.details as { action: string }).action])).toEqual([
        ["memory_add", globex.id, "extract"],
        ["memory_supersede", acme!.id, "update"],
        ["memory_add", afterS2.find((m) => m.content === "The user works at Acme Corp.")!.id, "extract"],
        ["memory_add", null, "store_turns"]
      ])
    }))

  it.scoped("within a session, a repetition merged by an earlier plan is then replaced by a later one", () =>
    Effect.gen(function*() {
      const server = yield* serverWithLlm
      const { baseUrl } = server
      yield* ingest(baseUrl, { session_id: "s1", messages: [{ content: "I work at Acme Corp." }] })
      const [acme] = yield* memories(baseUrl)
      yield* ingest(baseUrl, { session_id: "s2", messages: [{ content: "I work at Acme Corp." }, { content: "I work at Initech." }] })
      expect((yield* memories(baseUrl)).map((m) => m.content)).toEqual(["The user works at Initech."])
      expect(yield* sourcesOf(server, acme!.id)).toEqual([{ span_id: "span_s1_1" }, { span_id: "span_s2_1" }])
      const closed = (yield* rawFetch(`${baseUrl}/v1/memories/${acme!.id}?user_id=alice`, { headers: authHeaders() })).body as MemoryView
      expect(closed.status).toBe("superseded")
      const s2Events = (yield* events(baseUrl)).filter((event) => event.session_id === "s2").reverse()
      expect(s2Events.map((event) => [event.type, event.memory_id, (event.details as { action: string }).action]).slice(0, 3)).toEqual([
        ["memory_supersede", acme!.id, "duplicate_merge"],
        ["memory_add", (yield* memories(baseUrl))[0]!.id, "extract"],
        ["memory_supersede", acme!.id, "update"]
      ])
    }))

  it.scoped("scope keys are stamped on the facts and narrow what is listed", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* serverWithLlm
      yield* ingest(baseUrl, { agent_id: "planner", messages: [{ content: "I own a red bicycle." }] })
      const [fact] = yield* memories(baseUrl)
      expect(fact).toMatchObject({ agent_id: "planner", metadata: { scope: { agent_id: "planner" } } })
      const other = yield* rawFetch(`${baseUrl}/v1/memories?user_id=alice&agent_id=writer`, { headers: authHeaders() })
      expect((other.body as { total: number }).total).toBe(0)
    }))

  it.scoped("a long session is extracted in parts, every part's facts kept with their sources, entities and vectors", () =>
    Effect.gen(function*() {
      const server = yield* serverWithLlm
      const { baseUrl, stub } = server
      // More facts than one INSERT statement takes: the rows of each table go in several.
      const messages = Array.from({ length: 210 }, (_, i) => ({ content: `I visited museum number ${i + 1} with Clara.` }))
      const response = yield* ingest(baseUrl, { messages })
      expect(response.body).toMatchObject({ turns_written: 210, facts_extracted: 210 })
      expect(chatRequests(stub).filter((r) => JSON.stringify(r.body).includes("memory_extraction")).length).toBe(6)
      const sessionId = (response.body as { session_id: string }).session_id
      // Each fact is linked to its own turn, to its two entities by a role and an edge each, and its vector is its statement's.
      const rows = userRows(server)
      const facts = yield* rows.select("alice", "facts", { columns: ["fact_id", "content"], where: { session_id: sessionId } })
      const pairs = (list: ReadonlyArray<Record<string, unknown>>, a: string, b: string) => new Set(list.map((row) => `${row[a]} ${row[b]}`))
      const sources = pairs(yield* rows.select("alice", "fact_sources", { columns: ["fact_id", "span_id"] }), "fact_id", "span_id")
      const roles = pairs(yield* rows.select("alice", "fact_entity_roles", { columns: ["fact_id", "entity_id"] }), "fact_id", "entity_id")
      const edges = pairs(yield* rows.select("alice", "edges", { columns: ["src_fact_id", "dst_id"] }), "src_fact_id", "dst_id")
      const linked = facts.filter(({ content, fact_id }) =>
        sources.has(`${fact_id} span_${sessionId}_${Number.parseInt(String(content).slice(31), 10)}`) &&
        ["entity_user", "entity_clara"].every((entity) => roles.has(`${fact_id} ${entity}`) && edges.has(`${fact_id} ${entity}`))
      )
      expect(facts).toHaveLength(210)
      expect(linked).toHaveLength(210)
      const stored = yield* rows.vectors("alice", "facts")
      expect(stored).toHaveLength(210)
      for (const { content, vector } of stored) {
        expect([...vector]).toEqual([...Float32Array.from(stubEmbedding(content, vector.length))])
      }
    }))

  it.scopedLive("async: the job extracts and reports the counts", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* serverWithLlm
      const accepted = yield* ingest(baseUrl, { async_mode: true, messages: [{ content: "I adopted a cat named Miso." }] })
      expect(accepted.status).toBe(202)
      const job = yield* waitForJob(baseUrl, (accepted.body as { job_id: string }).job_id)
      expect(job).toMatchObject({ status: "succeeded", kind: "ingest", result: { facts_extracted: 1, turns_written: 1 } })
      expect((yield* memories(baseUrl)).map((m) => m.content)).toEqual(["The user adopted a cat named Miso."])
    }))

  it.scopedLive("a provider failure fails the ingest with its provider_* code and writes nothing", () =>
    Effect.gen(function*() {
      const server = yield* serverWithLlm
      const { baseUrl, stub } = server
      yield* ingest(baseUrl, { infer: false, messages: [{ content: "first turn" }] })
      // Two attempts (SERVICE_LLM_MAX_RETRIES=1), both refused.
      stub.failNext(503, 2)
      const unavailable = yield* ingest(baseUrl, { messages: [{ content: "I live in Rome." }] })
      expect(unavailable.status).toBe(400)
      expect(unavailable.body).toMatchObject({ code: "provider_unavailable" })
      expect(JSON.stringify(unavailable.body)).not.toContain("stub-key")
      stub.malformedNext(2)
      const malformed = yield* ingest(baseUrl, { messages: [{ content: "I live in Rome." }] })
      expect(malformed.body).toMatchObject({ code: "provider_invalid_output" })
      // Async, the job fails with the same code, as "<code>: <message>".
      stub.failNext(503, 2)
      const accepted = yield* ingest(baseUrl, { async_mode: true, messages: [{ content: "I live in Rome." }] })
      const job = yield* waitForJob(baseUrl, (accepted.body as { job_id: string }).job_id)
      expect(job).toMatchObject({ status: "failed", kind: "ingest" })
      expect(job.error).toMatch(/^provider_unavailable: /)
      expect(yield* userRows(server).count("alice", "turns")).toBe(1)
      expect(yield* userRows(server).count("alice", "facts")).toBe(0)
    }))

  it.scoped("without an LLM, infer=true is refused with config_invalid (sync and async) and infer=false still works", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      for (const asyncMode of [false, true]) {
        const response = yield* ingest(baseUrl, { async_mode: asyncMode, messages: [{ content: "I live in Rome." }] })
        expect(response.status).toBe(400)
        expect(response.body).toMatchObject({ code: "config_invalid", details: { infer: true } })
      }
      expect((yield* ingest(baseUrl, { infer: false, messages: [{ content: "I live in Rome." }] })).status).toBe(200)
    }))
})

describe("PATCH /v1/memories/{id} with an LLM", () => {
  it.scoped("the correction goes through extraction: the newest fact becomes the new version", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* serverWithLlm
      yield* ingest(baseUrl, { session_time: "2023-01-10", messages: [{ content: "I live in Paris." }] })
      const [paris] = yield* memories(baseUrl)
      const response = yield* sendJson(`${baseUrl}/v1/memories/${paris!.id}`, {
        user_id: "alice",
        content: "I live in Madrid since 2024-03-01.",
        session_id: "fix"
      }, "PATCH")
      expect(response.status).toBe(200)
      expect(response.body).toMatchObject({
        superseded_id: paris!.id,
        valid_until: "2024-03-01",
        memory: { content: "The user lives in Madrid since 2024-03-01.", occurred_at: "2024-03-01", metadata: { corrects: paris!.id } }
      })
      expect((yield* memories(baseUrl)).map((m) => m.content)).toEqual(["The user lives in Madrid since 2024-03-01."])
    }))

  it.scoped("a correction in which extraction finds nothing is 422 and leaves the memory current", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* serverWithLlm
      yield* ingest(baseUrl, { messages: [{ content: "I live in Paris." }] })
      const [paris] = yield* memories(baseUrl)
      const response = yield* sendJson(`${baseUrl}/v1/memories/${paris!.id}`, { user_id: "alice", content: "ok thanks" }, "PATCH")
      expect(response.status).toBe(422)
      expect(response.body).toMatchObject({ code: "unprocessable" })
      expect((yield* memories(baseUrl)).map((m) => m.id)).toEqual([paris!.id])
    }))
})
