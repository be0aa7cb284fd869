import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect, Exit, Scope } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import { stubEmbedding } from "../scripts/stubs/embedding.js"
import { type ProviderStub, startProviderStub } from "../scripts/stubs/llm-providers.js"
import { chatRequests, llmEnv, providerStub } from "./support/llm.js"
import { startProcess } from "./support/processes.js"
import {
  authHeaders,
  freshDeployment,
  onPostgres,
  rawFetch,
  type RunningServer,
  sendJson,
  serviceEnv,
  startServer,
  tempDataRoot,
  waitForJob
} from "./support/server.js"
import { controlFile, storeFile } from "./support/stores.js"
import { controlRows, userRows } from "./support/userRows.js"

/**
 * Forgetting a memory: archived, it leaves every read (its words elided from the turns it came
 * from, as shown); purged, its words leave the stored turns too. The memories are extracted by the
 * loopback LLM stub, whose embedder also serves the vector legs.
 */

const TURN = "I live in Berlin with my partner Tomas. My bank PIN is 4417. I play the cello on Sundays."
/** The sentence of TURN that shares words with the memory "The user's bank PIN is 4417.". */
const EXCERPT = "My bank PIN is 4417."
/** A turn no memory is taken from. */
const UNRELATED = "We talked about the weather in Lisbon."
/** The memory's own words, a paraphrase sharing some of them, and the bare number. */
const QUERIES = ["bank PIN 4417", "what is my PIN number", "4417"]

type Mode = "archive" | "purge"
const MODES: ReadonlyArray<Mode> = ["archive", "purge"]
/** What takes the excerpt's place: in the turn as shown once archived, in the stored turn once purged. */
const MARKER: Record<Mode, string> = { archive: "[…]", purge: "[redacted]" }

interface MemoryView {
  readonly id: string
  readonly content: string
  readonly kind: string
  readonly status: string
  readonly metadata: Record<string, unknown>
}

interface Hit {
  readonly id: string
  readonly content: string
  readonly metadata: { readonly routes: ReadonlyArray<{ readonly route: string }> }
}

interface SearchBody {
  readonly hits: ReadonlyArray<Hit>
}

const get = (url: string) => rawFetch(url, { headers: authHeaders() })

const forget = (baseUrl: string, userId: string, memoryId: string, mode: Mode) =>
  rawFetch(`${baseUrl}/v1/memories/${memoryId}?user_id=${userId}${mode === "purge" ? "&purge=true" : ""}`, { method: "DELETE", headers: authHeaders() })

const ingest = (baseUrl: string, body: Record<string, unknown>) => sendJson(`${baseUrl}/v1/memories`, { user_id: "alice", async_mode: false, ...body })

const memoriesOf = (baseUrl: string, userId: string) =>
  Effect.map(get(`${baseUrl}/v1/memories?user_id=${userId}&limit=500`), (response) => (response.body as { memories: ReadonlyArray<MemoryView> }).memories)

const search = (baseUrl: string, query: string, extra: Record<string, unknown> = {}) =>
  sendJson(`${baseUrl}/v1/search`, { user_id: "alice", query, top_k: 50, ...extra })

/** A response as JSON, less its top-level fields that only echo the request (a search's `query`). */
const shown = (body: unknown, echoed: ReadonlyArray<string> = []) =>
  JSON.stringify(typeof body === "object" && body !== null ? Object.fromEntries(Object.entries(body).filter(([key]) => !echoed.includes(key))) : body)

/**
 * Whether a text (or a file's bytes read as Latin-1) holds a number as the number it is: not as
 * part of a random id (a UUID, a hex request id), a decimal (a score, a timestamp) or a longer word.
 */
const mentions = (text: string, number: string) => new RegExp(`(?<![0-9A-Za-z.-])${number}(?![0-9A-Za-z-])`).test(text)

const expectNoMention = (text: string, number: string, where: string) => expect(mentions(text, number), `${where}: ${number} in ${text}`).toBe(false)

/** Neither the number nor the word "PIN" (any case, as a word) anywhere in the text. */
const expectNoTraceOfThePin = (text: string, where: string) => {
  expectNoMention(text, "4417", where)
  expect(text, where).not.toMatch(/\bpin\b/i)
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** One space for each run of spaces, none at the ends. */
const squeezed = (text: string) => text.replace(/\s+/g, " ").trim()

/** A turn as shown or stored after forgetting: the marker, alone, exactly where the excerpt was. */
const expectElided = (text: string, original: string, excerpt: string, marker: string, where: string) => {
  expect(text, where).toContain(marker)
  expect(text.split(marker), where).toHaveLength(2)
  expect(squeezed(text.replace(marker, ` ${excerpt} `)), where).toBe(squeezed(original))
}

/** The evidence lines the answer path put before the model (planner and reader) in the chat calls from `from` on. */
const evidenceSentToModel = (stub: ProviderStub, from: number) =>
  chatRequests(stub).slice(from).map((request) => {
    const body = request.body as { messages: ReadonlyArray<{ content: string }> }
    const input = JSON.parse(body.messages.at(-1)?.content ?? "{}") as { evidence?: unknown }
    return JSON.stringify(input.evidence ?? [])
  }).join("\n")

/** A word that the stub embedder puts exactly where it puts `word`: the same vector, and no letter of it in common for the lexical legs. */
const vectorTwin = (word: string, dimensions: number) => {
  const target = stubEmbedding(word, dimensions)
  for (let i = 0; i < 200_000; i++) {
    const candidate = `zq${i}x`
    if (stubEmbedding(candidate, dimensions).every((value, position) => value === target[position])) return candidate
  }
  throw new Error(`no vector twin of ${word} in ${dimensions} dimensions`)
}

const cosine = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!
    na += a[i]! * a[i]!
    nb += b[i]! * b[i]!
  }
  return dot / Math.sqrt(na * nb)
}

interface Remembered extends RunningServer {
  readonly stub: ProviderStub
  readonly pin: MemoryView
  readonly berlin: MemoryView
  readonly cello: MemoryView
}

/**
 * A server with the stub as its LLM and embedder (purge allowed) where alice said TURN in session
 * s1, from which three memories were extracted, and UNRELATED in session s2, stored verbatim.
 */
const remembered = (env: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const stub = yield* providerStub("openai")
    const server = yield* startServer({ ...llmEnv(stub), SERVICE_EMBED_MODEL: "stub-embed", SERVICE_ALLOW_PURGE: "true", ...env })
    const extracted = yield* ingest(server.baseUrl, { session_id: "s1", session_time: "2024-03-05", messages: [{ role: "user", content: TURN }] })
    expect(extracted.body).toMatchObject({ facts_extracted: 3, turns_written: 1 })
    yield* ingest(server.baseUrl, { session_id: "s2", session_time: "2024-03-06", infer: false, messages: [{ content: UNRELATED }] })
    const memories = yield* memoriesOf(server.baseUrl, "alice")
    const about = (word: string) => {
      const found = memories.find((memory) => memory.content.includes(word))
      if (found === undefined) throw new Error(`no memory about ${word} in ${JSON.stringify(memories)}`)
      return found
    }
    return { ...server, stub, pin: about("4417"), berlin: about("Berlin"), cello: about("cello") } satisfies Remembered
  })

/** Every event of alice's audit trail, newest first. */
const allEvents = (baseUrl: string) =>
  Effect.map(get(`${baseUrl}/v1/events?user_id=alice&limit=200`), (response) => response.body as { events: ReadonlyArray<Record<string, unknown>>; total: number })

describe("what the stub extracts", () => {
  it.scoped("one user turn of three sentences gives three memories, all sourced from that turn", () =>
    Effect.gen(function*() {
      const server = yield* remembered()
      expect((yield* memoriesOf(server.baseUrl, "alice")).map((memory) => memory.content)).toEqual([
        "The user lives in Berlin with the user's partner Tomas.",
        "The user's bank PIN is 4417.",
        "The user plays the cello on Sundays."
      ])
      expect(yield* userRows(server).select("alice", "fact_sources", { columns: ["span_id"], where: { fact_id: server.pin.id } })).toEqual([{ span_id: "span_s1_1" }])
      // Before anything is forgotten, every query finds the PIN: what the tests below expect gone was there.
      for (const query of QUERIES) expect(mentions(shown((yield* search(server.baseUrl, query)).body, ["query"]), "4417"), query).toBe(true)
    }))
})

for (const mode of MODES) {
  describe(`forgetting a memory (${mode})`, () => {
    it.scoped("search, context, refine and the answer path give back nothing of it: not its words, a paraphrase's, nor the bare number", () =>
      Effect.gen(function*() {
        const server = yield* remembered()
        const { baseUrl, stub } = server
        const forgotten = yield* forget(baseUrl, "alice", server.pin.id, mode)
        expect(forgotten.status).toBe(200)
        expect(forgotten.body).toMatchObject({ id: server.pin.id, deleted: true, already_deleted: false, purged: mode === "purge" })
        for (const query of QUERIES) {
          const searched = yield* search(baseUrl, query)
          expect(searched.status).toBe(200)
          expectNoTraceOfThePin(shown(searched.body, ["query"]), `search "${query}"`)
          expectNoTraceOfThePin(shown((yield* search(baseUrl, query, { include_superseded: true })).body, ["query"]), `search "${query}" with superseded versions`)
          const context = yield* sendJson(`${baseUrl}/v1/context`, { user_id: "alice", query })
          expect(context.status).toBe(200)
          expectNoTraceOfThePin(shown(context.body), `POST context "${query}"`)
          const contextGet = yield* get(`${baseUrl}/v1/context?user_id=alice&query=${encodeURIComponent(query)}`)
          expect(contextGet.status).toBe(200)
          expectNoTraceOfThePin(shown(contextGet.body), `GET context "${query}"`)
          const refined = yield* sendJson(`${baseUrl}/v1/refine`, { user_id: "alice", query })
          expect(refined.status).toBe(200)
          expectNoTraceOfThePin(shown(refined.body, ["query"]), `refine "${query}"`)
          // The answer path: what the planner and the reader were shown, and what it answers.
          const calls = chatRequests(stub).length
          const answered = yield* sendJson(`${baseUrl}/v1/answer`, { user_id: "alice", question: query })
          expect(answered.status).toBe(200)
          expect(chatRequests(stub).length).toBeGreaterThan(calls)
          expectNoTraceOfThePin(evidenceSentToModel(stub, calls), `evidence the answer path read for "${query}"`)
          const answer = answered.body as { answer: string; citations: ReadonlyArray<string> }
          expectNoTraceOfThePin(JSON.stringify([answer.answer, answer.citations]), `answer to "${query}"`)
          expect(answer.citations.join(" ")).not.toContain(server.pin.id)
        }
        expect((yield* get(`${baseUrl}/v1/memories/${server.pin.id}?user_id=alice`)).status).toBe(404)
        const listed = yield* get(`${baseUrl}/v1/memories?user_id=alice`)
        expect(listed.body).toMatchObject({ total: 2 })
        expectNoTraceOfThePin(listed.text, "GET /v1/memories")
      }))

    it.scoped("the rest of its turn is still found by its own words, shown with the marker where the excerpt was; a turn with no memory in it is untouched", () =>
      Effect.gen(function*() {
        const server = yield* remembered()
        const { baseUrl } = server
        const marker = MARKER[mode]
        yield* forget(baseUrl, "alice", server.pin.id, mode)
        const cello = (yield* search(baseUrl, "cello Sundays")).body as SearchBody
        expect(cello.hits.some((hit) => hit.content.includes("cello")), JSON.stringify(cello)).toBe(true)
        expectNoTraceOfThePin(JSON.stringify(cello.hits), "search \"cello Sundays\"")
        const berlin = (yield* search(baseUrl, "Berlin Tomas")).body as SearchBody
        const shownTurn = berlin.hits.find((hit) => hit.id === "ev_raw:s1_turn_1")
        expect(shownTurn, JSON.stringify(berlin)).toBeDefined()
        expectElided(shownTurn?.content ?? "", TURN, EXCERPT, marker, "the raw turn as search shows it")
        for (const hit of berlin.hits.filter((hit) => hit.content.includes("Berlin"))) expectElided(hit.content, TURN, EXCERPT, marker, `hit ${hit.id}`)
        // The other memories of the turn show the marker in their support text too.
        for (const memory of [server.berlin, server.cello]) {
          const read = (yield* get(`${baseUrl}/v1/memories/${memory.id}?user_id=alice`)).body as MemoryView
          expect(read.status).toBe("active")
          expectElided(String(read.metadata.support_text), TURN, EXCERPT, marker, `support_text of ${memory.content}`)
        }
        const context = (yield* sendJson(`${baseUrl}/v1/context`, { user_id: "alice", query: "Berlin Tomas cello" })).body as { text: string }
        expect(context.text).toMatch(new RegExp(`Tomas\\.\\s*${escaped(marker)}\\s*I play the cello`))
        expectNoTraceOfThePin(context.text, "context \"Berlin Tomas cello\"")
        // A turn no memory came from is found by its own words, as it was said.
        const weather = (yield* search(baseUrl, "weather Lisbon")).body as SearchBody
        expect(weather.hits.find((hit) => hit.id === "ev_raw:s2_turn_1")?.content).toBe(UNRELATED)
        // The turn's full-text index follows the text shown.
        const rows = userRows(server)
        expect(yield* rows.matching("alice", "turns", "4417")).toBe(0)
        expect(yield* rows.matching("alice", "turns", "bank")).toBe(0)
        expect(yield* rows.matching("alice", "turns", "cello")).toBe(1)
        expect(yield* rows.matching("alice", "turns", "weather")).toBe(1)
      }))

    it.scoped("a query nearest to it by vector alone, sharing none of its words, finds nothing of it; its turn is re-embedded as shown", () =>
      Effect.gen(function*() {
        const server = yield* remembered()
        const { baseUrl } = server
        const space = yield* userRows(server).vectorSpace("alice")
        expect(space?.dimensions).toBeGreaterThan(0)
        const dimensions = space?.dimensions ?? 0
        // Words no text holds, which the embedder puts exactly where it puts "bank", "pin" and "4417".
        const query = ["bank", "pin", "4417"].map((word) => vectorTwin(word, dimensions)).join(" ")
        const before = (yield* search(baseUrl, query)).body as SearchBody
        expect(before.hits[0]?.id, JSON.stringify(before)).toBe(server.pin.id)
        expect(before.hits.flatMap((hit) => hit.metadata.routes.map((route) => route.route)).every((route) => route.startsWith("vector_"))).toBe(true)
        yield* forget(baseUrl, "alice", server.pin.id, mode)
        const after = yield* search(baseUrl, query)
        expect(after.status).toBe(200)
        expectNoTraceOfThePin(shown(after.body, ["query"]), "the vector-only search")
        expect((after.body as SearchBody).hits.map((hit) => hit.id)).not.toContain(server.pin.id)
        const context = yield* sendJson(`${baseUrl}/v1/context`, { user_id: "alice", query })
        expectNoTraceOfThePin(shown(context.body), "the vector-only context")
        // The turn's vector is the embedding of the turn as shown (the marker in the excerpt's place).
        const turns = yield* userRows(server).vectors("alice", "turns")
        expect(turns).toHaveLength(2)
        const expected = stubEmbedding(TURN.replace(EXCERPT, MARKER[mode]), dimensions)
        expect(cosine(turns[0]!.vector, expected)).toBeGreaterThan(0.999)
      }))

    it.scoped("entity_timeline and explore leave it out", () =>
      Effect.gen(function*() {
        const server = yield* remembered()
        const { baseUrl } = server
        yield* forget(baseUrl, "alice", server.pin.id, mode)
        for (const entity of ["pin", "user", "berlin"]) {
          const timeline = yield* get(`${baseUrl}/v1/entity_timeline?user_id=alice&entity_id=${entity}`)
          expect(timeline.status).toBe(200)
          expectNoTraceOfThePin(shown(timeline.body, ["entity_id"]), `entity_timeline ${entity}`)
        }
        const berlin = (yield* get(`${baseUrl}/v1/entity_timeline?user_id=alice&entity_id=berlin`)).body as { items: ReadonlyArray<{ id: string }> }
        expect(berlin.items.map((item) => item.id)).toEqual([server.berlin.id])
        for (const start of [server.berlin.id, server.cello.id, server.pin.id]) {
          const explored = yield* get(`${baseUrl}/v1/explore?user_id=alice&start_id=${start}&depth=3&limit=100`)
          expect(explored.status).toBe(200)
          expectNoTraceOfThePin(explored.text, `explore from ${start}`)
          const nodes = (explored.body as { nodes: ReadonlyArray<{ id: string }> }).nodes.map((node) => node.id)
          expect(nodes).not.toContain(server.pin.id)
        }
      }))

    it.scoped("a corrected memory goes with the versions it superseded", () =>
      Effect.gen(function*() {
        const server = yield* remembered()
        const { baseUrl } = server
        const corrected = yield* ingest(baseUrl, { session_id: "s3", session_time: "2024-04-01", messages: [{ role: "user", content: "My bank PIN is 5520." }] })
        expect(corrected.body).toMatchObject({ facts_extracted: 1 })
        const current = (yield* memoriesOf(baseUrl, "alice")).find((memory) => memory.content.includes("5520"))
        expect(current).toBeDefined()
        const newest = current?.id ?? ""
        // The stub read the correction as an update: the old version is superseded, still readable.
        expect((yield* get(`${baseUrl}/v1/memories/${server.pin.id}?user_id=alice`)).body).toMatchObject({ status: "superseded" })
        const forgotten = yield* forget(baseUrl, "alice", newest, mode)
        expect(forgotten.body).toMatchObject({ deleted: true })
        // Two versions erased (the memory counted), and the turn of each.
        if (mode === "purge") expect(forgotten.body).toMatchObject({ cascaded: { versions: 2, turns_redacted: 2 } })
        for (const id of [newest, server.pin.id]) expect((yield* get(`${baseUrl}/v1/memories/${id}?user_id=alice`)).status, id).toBe(404)
        for (const query of ["bank PIN", "4417", "5520"]) {
          const text = shown((yield* search(baseUrl, query, { include_superseded: true })).body, ["query"])
          expectNoMention(text, "4417", query)
          expectNoMention(text, "5520", query)
        }
        const rows = userRows(server)
        const statuses = yield* rows.select("alice", "facts", { columns: ["fact_id", "status"], orderBy: "fact_id" })
        const ofVersions = statuses.filter((row) => row.fact_id === newest || row.fact_id === server.pin.id)
        if (mode === "archive") expect(ofVersions.map((row) => row.status)).toEqual(["archived", "archived"])
        else expect(ofVersions).toEqual([])
        if (mode === "purge") {
          const turns = yield* rows.select("alice", "turns", { columns: ["turn_id", "content"], orderBy: "seq" })
          for (const turn of turns) {
            expectNoMention(String(turn.content), "4417", "a stored turn")
            expectNoMention(String(turn.content), "5520", "a stored turn")
          }
          expect(turns.find((turn) => turn.turn_id === "s3_turn_1")?.content).toBe("[redacted]")
          expectNoTraceOfThePin(JSON.stringify((yield* allEvents(baseUrl)).events), "the audit trail")
        }
      }))

    it.scoped("a memory that is its whole turn: the turn's words go whole", () =>
      Effect.gen(function*() {
        const server = yield* remembered()
        const { baseUrl } = server
        yield* ingest(baseUrl, { session_id: "s4", messages: [{ role: "user", content: "My locker code is 9931." }] })
        const locker = (yield* memoriesOf(baseUrl, "alice")).find((memory) => memory.content.includes("9931"))
        expect(locker?.content).toBe("The user's locker code is 9931.")
        const forgotten = yield* forget(baseUrl, "alice", locker?.id ?? "", mode)
        expect(forgotten.body).toMatchObject({ deleted: true })
        for (const query of ["locker 9931", "9931", "locker code"]) {
          const text = shown((yield* search(baseUrl, query)).body, ["query"])
          expectNoMention(text, "9931", query)
          expectNoMention(shown((yield* sendJson(`${baseUrl}/v1/context`, { user_id: "alice", query })).body), "9931", query)
        }
        expect(yield* userRows(server).matching("alice", "turns", "locker")).toBe(0)
        if (mode === "purge") {
          expect(forgotten.body).toMatchObject({ cascaded: { turns_redacted: 1 } })
          expect(yield* userRows(server).select("alice", "turns", { columns: ["content"], where: { turn_id: "s4_turn_1" } })).toEqual([{ content: "[redacted]" }])
        }
        // The PIN turn, which holds no word of this memory, is as it was.
        expect(((yield* search(baseUrl, "bank PIN 4417")).body as SearchBody).hits.some((hit) => hit.content === TURN)).toBe(true)
      }))
  })
}

for (const mode of MODES) {
  describe(`profiles built from a forgotten memory (${mode})`, () => {
    it.scoped("a profile (dream) citing it goes with it, and the next dream rebuilds the profile without it", () =>
      Effect.gen(function*() {
        const server = yield* remembered()
        const { baseUrl } = server
        const dream = () => sendJson(`${baseUrl}/v1/maintenance/dream`, { user_id: "alice", batch_size: 100 })
        expect((yield* dream()).body).toMatchObject({ status: "ok", remaining_stale: 0 })
        // The user's profile sums up the memories about the user, the PIN among them.
        const profiles = (yield* memoriesOf(baseUrl, "alice")).filter((memory) => memory.kind === "profile")
        expect(profiles.some((profile) => profile.content.includes("4417")), JSON.stringify(profiles)).toBe(true)
        yield* forget(baseUrl, "alice", server.pin.id, mode)
        const check = (when: string) =>
          Effect.gen(function*() {
            const listed = yield* get(`${baseUrl}/v1/memories?user_id=alice&limit=500`)
            expectNoMention(listed.text, "4417", `GET /v1/memories ${when}`)
            for (const query of QUERIES) {
              expectNoMention(shown((yield* search(baseUrl, query)).body, ["query"]), "4417", `search "${query}" ${when}`)
              expectNoMention(shown((yield* sendJson(`${baseUrl}/v1/context`, { user_id: "alice", query })).body), "4417", `context "${query}" ${when}`)
            }
            const timeline = yield* get(`${baseUrl}/v1/entity_timeline?user_id=alice&entity_id=user`)
            expectNoMention(timeline.text, "4417", `entity_timeline user ${when}`)
          })
        yield* check("once forgotten")
        expect((yield* dream()).body).toMatchObject({ status: "ok", remaining_stale: 0 })
        yield* check("after the next dream")
        const rebuilt = (yield* memoriesOf(baseUrl, "alice")).filter((memory) => memory.kind === "profile" && memory.content.startsWith("user:"))
        expect(rebuilt).toHaveLength(1)
        expect(rebuilt[0]?.content).toContain("cello")
      }))
  })
}

for (const mode of MODES) {
  describe(`a memory said in two turns (${mode})`, () => {
    it.scoped("its words leave each of its source turns", () =>
      Effect.gen(function*() {
        const server = yield* remembered()
        const { baseUrl } = server
        // The same statement again, in another session: merged into the memory as a second source.
        const again = yield* ingest(baseUrl, { session_id: "s5", messages: [{ role: "user", content: "Remember this. My bank PIN is 4417." }] })
        expect(again.status).toBe(200)
        expect((yield* memoriesOf(baseUrl, "alice")).filter((memory) => mentions(memory.content, "4417"))).toHaveLength(1)
        expect(yield* userRows(server).count("alice", "fact_sources", { fact_id: server.pin.id })).toBe(2)
        const forgotten = yield* forget(baseUrl, "alice", server.pin.id, mode)
        if (mode === "purge") expect(forgotten.body).toMatchObject({ cascaded: { turns_redacted: 2, fact_sources: 2 } })
        for (const query of QUERIES) expectNoTraceOfThePin(shown((yield* search(baseUrl, query)).body, ["query"]), `search "${query}"`)
        const remember = ((yield* search(baseUrl, "Remember this")).body as SearchBody).hits.find((hit) => hit.id === "ev_raw:s5_turn_1")
        expect(remember?.content).toBeDefined()
        expectElided(remember?.content ?? "", "Remember this. My bank PIN is 4417.", EXCERPT, MARKER[mode], "the second source turn as shown")
      }))
  })
}

describe("archive, then purge", () => {
  it.scoped("purging an archived memory redacts the stored turn too, and nothing of it comes back", () =>
    Effect.gen(function*() {
      const server = yield* remembered()
      const { baseUrl } = server
      yield* forget(baseUrl, "alice", server.pin.id, "archive")
      const purged = yield* forget(baseUrl, "alice", server.pin.id, "purge")
      expect(purged.body).toMatchObject({ deleted: true, purged: true, cascaded: { versions: 1, turns_redacted: 1 } })
      const [turn] = yield* userRows(server).select("alice", "turns", { columns: ["content"], where: { turn_id: "s1_turn_1" } })
      expectNoMention(String(turn?.content), "4417", "the stored turn")
      expect(String(turn?.content)).toContain("[redacted]")
      expect(yield* userRows(server).count("alice", "facts", { fact_id: server.pin.id })).toBe(0)
      for (const query of QUERIES) expectNoTraceOfThePin(shown((yield* search(baseUrl, query)).body, ["query"]), `search "${query}"`)
      expectNoTraceOfThePin(JSON.stringify((yield* allEvents(baseUrl)).events), "the audit trail")
      // A second purge finds nothing left, and changes nothing.
      const again = yield* forget(baseUrl, "alice", server.pin.id, "purge")
      expect(again.body).toMatchObject({ deleted: false, purged: true })
      expect(yield* userRows(server).select("alice", "turns", { columns: ["content"], where: { turn_id: "s1_turn_1" } })).toEqual([turn])
    }))
})

describe("archiving all of a user's memories", () => {
  it.scoped("DELETE /v1/memories?user_id= takes every memory's words out of what is shown; a turn with no memory stays as said", () =>
    Effect.gen(function*() {
      const server = yield* remembered()
      const { baseUrl } = server
      const response = yield* rawFetch(`${baseUrl}/v1/memories?user_id=alice`, { method: "DELETE", headers: authHeaders() })
      expect(response.body).toMatchObject({ deleted: true, archived: 3 })
      for (const query of [...QUERIES, "Berlin Tomas", "cello Sundays"]) {
        const text = shown((yield* search(baseUrl, query)).body, ["query"])
        expectNoTraceOfThePin(text, `search "${query}"`)
        expect(text, query).not.toMatch(/Berlin|Tomas|cello/)
      }
      const weather = (yield* search(baseUrl, "weather Lisbon")).body as SearchBody
      expect(weather.hits.find((hit) => hit.id === "ev_raw:s2_turn_1")?.content).toBe(UNRELATED)
    }))
})

describe("archive keeps the record", () => {
  it.scoped("the archived memory's row stays (archived), GET is 404, and the audit trail lists the archive", () =>
    Effect.gen(function*() {
      const server = yield* remembered()
      const { baseUrl } = server
      yield* forget(baseUrl, "alice", server.pin.id, "archive")
      expect((yield* get(`${baseUrl}/v1/memories/${server.pin.id}?user_id=alice`)).status).toBe(404)
      expect(yield* userRows(server).select("alice", "facts", { columns: ["status"], where: { fact_id: server.pin.id } })).toEqual([{ status: "archived" }])
      const events = (yield* get(`${baseUrl}/v1/events?user_id=alice&type=memory_delete`)).body as { events: ReadonlyArray<Record<string, unknown>> }
      expect(events.events).toHaveLength(1)
      expect(events.events[0]).toMatchObject({ memory_id: server.pin.id, details: { action: "archive" } })
      // Archiving again changes nothing.
      expect((yield* forget(baseUrl, "alice", server.pin.id, "archive")).body).toMatchObject({ deleted: true, already_deleted: true })
    }))

  it.scopedLive("without an embedder, the turn's vector is dropped; an embedder started later finds nothing of the memory by vector", () =>
    Effect.gen(function*() {
      const dataRoot = tempDataRoot()
      const first = yield* Scope.make()
      const server = yield* Scope.extend(remembered({ SERVICE_DATA_ROOT: dataRoot }), first)
      const dimensions = (yield* userRows(server).vectorSpace("alice"))?.dimensions ?? 0
      yield* Scope.close(first, Exit.void)
      const second = yield* Scope.make()
      const plain = yield* Scope.extend(startServer({ SERVICE_DATA_ROOT: dataRoot }), second)
      yield* forget(plain.baseUrl, "alice", server.pin.id, "archive")
      const vectors = yield* userRows(plain).vectors("alice", "turns")
      expect(vectors.map((turn) => turn.content)).toEqual([UNRELATED])
      yield* Scope.close(second, Exit.void)
      const stub = yield* providerStub("openai")
      const again = yield* startServer({ ...llmEnv(stub), SERVICE_EMBED_MODEL: "stub-embed", SERVICE_DATA_ROOT: dataRoot })
      const query = ["bank", "pin", "4417"].map((word) => vectorTwin(word, dimensions)).join(" ")
      const searched = yield* search(again.baseUrl, query)
      expect(searched.status).toBe(200)
      expectNoTraceOfThePin(shown(searched.body, ["query"]), "the vector-only search")
    }))
})

describe("forgetting and the answer jobs of the user", () => {
  for (const mode of MODES) {
    it.scopedLive(`${mode}: a finished answer job that quoted the memory keeps none of its words`, () =>
      Effect.gen(function*() {
        const server = yield* remembered()
        const { baseUrl } = server
        const accepted = yield* sendJson(`${baseUrl}/v1/answer`, { user_id: "alice", question: "what is my PIN number", async_mode: true })
        const jobId = (accepted.body as { job_id: string }).job_id
        expect(mentions(JSON.stringify((yield* waitForJob(baseUrl, jobId)).result), "4417")).toBe(true)
        expect((yield* forget(baseUrl, "alice", server.pin.id, mode)).body).toMatchObject({ deleted: true })
        const read = yield* get(`${baseUrl}/v1/jobs/${jobId}`)
        expect(read.body).toMatchObject({ status: "succeeded", kind: "answer" })
        expectNoMention(read.text, "4417", `GET /v1/jobs/{id} after ${mode}`)
        expect(read.text).toContain(MARKER[mode])
      }))

    it.scopedLive(`${mode}: answer jobs under way when the memory is forgotten end with none of its words`, () =>
      Effect.gen(function*() {
        const server = yield* remembered()
        const { baseUrl } = server
        // Each answer's model calls take a while: some jobs are between their search and their result when the memory goes.
        server.stub.setDelays(40, 0)
        const ids: Array<string> = []
        for (let i = 0; i < 30; i++) {
          const accepted = yield* sendJson(`${baseUrl}/v1/answer`, { user_id: "alice", question: "what is my bank PIN", async_mode: true, max_steps: 2 })
          ids.push((accepted.body as { job_id: string }).job_id)
        }
        yield* Effect.sleep("150 millis")
        expect((yield* forget(baseUrl, "alice", server.pin.id, mode)).body).toMatchObject({ deleted: true })
        for (const jobId of ids) {
          const job = yield* waitForJob(baseUrl, jobId)
          expect(job.status).toBe("succeeded")
          expectNoMention(JSON.stringify(job), "4417", `answer job ${jobId} after ${mode}`)
        }
      }), 120_000)
  }

  it.scopedLive("an erase drops the user's finished jobs, and answers under way end knowing nothing of them", () =>
    Effect.gen(function*() {
      const server = yield* remembered()
      const { baseUrl } = server
      const done = yield* sendJson(`${baseUrl}/v1/answer`, { user_id: "alice", question: "what is my PIN number", async_mode: true })
      const doneId = (done.body as { job_id: string }).job_id
      yield* waitForJob(baseUrl, doneId)
      server.stub.setDelays(40, 0)
      const running: Array<string> = []
      for (let i = 0; i < 10; i++) {
        running.push(((yield* sendJson(`${baseUrl}/v1/answer`, { user_id: "alice", question: "what is my bank PIN", async_mode: true, max_steps: 2 })).body as { job_id: string }).job_id)
      }
      yield* Effect.sleep("150 millis")
      expect((yield* rawFetch(`${baseUrl}/v1/memories?user_id=alice&purge=true`, { method: "DELETE", headers: authHeaders() })).body).toMatchObject({ purged: true })
      expect((yield* get(`${baseUrl}/v1/jobs/${doneId}`)).status).toBe(404)
      for (const jobId of running) {
        const job = yield* rawFetch(`${baseUrl}/v1/jobs/${jobId}`, { headers: authHeaders() })
        // Finished before the erase: dropped with it; after: an answer from nothing.
        if (job.status === 200) expectNoMention(JSON.stringify(yield* waitForJob(baseUrl, jobId)), "4417", `answer job ${jobId} after the erase`)
        else expect(job.status).toBe(404)
      }
    }), 120_000)
})

describe("purge", () => {
  it.scoped("the stored turn holds [redacted] in the excerpt's place; the memory's rows go; events and the request log keep none of its words", () =>
    Effect.gen(function*() {
      const server = yield* remembered()
      const { baseUrl } = server
      const purged = yield* forget(baseUrl, "alice", server.pin.id, "purge")
      expect(purged.status).toBe(200)
      expect(purged.body).toMatchObject({
        id: server.pin.id,
        deleted: true,
        purged: true,
        // One version erased: the memory itself, which superseded none.
        cascaded: { versions: 1, turns_redacted: 1, vectors: 1, fact_entity_roles: 2, fact_edges: 2, fact_sources: 1 }
      })
      const rows = userRows(server)
      const [turn] = yield* rows.select("alice", "turns", { columns: ["content"], where: { turn_id: "s1_turn_1" } })
      expectNoMention(String(turn?.content), "4417", "the stored turn")
      expectElided(String(turn?.content), TURN, EXCERPT, "[redacted]", "the stored turn")
      expect(yield* rows.count("alice", "facts", { fact_id: server.pin.id })).toBe(0)
      expect(yield* rows.count("alice", "fact_sources", { fact_id: server.pin.id })).toBe(0)
      expect(yield* rows.count("alice", "fact_entity_roles", { fact_id: server.pin.id })).toBe(0)
      expect(yield* rows.count("alice", "edges", { src_fact_id: server.pin.id })).toBe(0)
      expect(yield* rows.matching("alice", "facts", "4417")).toBe(0)
      expect(yield* rows.matching("alice", "turns", "4417")).toBe(0)
      expectNoMention((yield* rows.vectors("alice", "facts")).map((fact) => fact.content).join("\n"), "4417", "the facts with vectors")
      // The other memories of the turn stay, with the marker in their support text.
      for (const memory of [server.berlin, server.cello]) {
        const read = (yield* get(`${baseUrl}/v1/memories/${memory.id}?user_id=alice`)).body as MemoryView
        expectElided(String(read.metadata.support_text), TURN, EXCERPT, "[redacted]", `support_text of ${memory.content}`)
      }
      const events = yield* allEvents(baseUrl)
      expect(events.events.some((event) => event.memory_id === server.pin.id && event.type === "memory_delete")).toBe(true)
      expectNoTraceOfThePin(JSON.stringify(events), "GET /v1/events")
      expect(JSON.stringify(events)).not.toContain("bank")
      const requests = yield* get(`${baseUrl}/v1/admin/requests?limit=1000`)
      expect(requests.status).toBe(200)
      expectNoMention(requests.text, "4417", "GET /v1/admin/requests")
    }))

  it.scoped("the embedder's remembered queries go with it: the same search asks for its vector again", () =>
    Effect.gen(function*() {
      const server = yield* remembered()
      const query = "what is my bank PIN"
      const asked = () => server.stub.requests.filter((request) => request.path.includes("embeddings") && JSON.stringify(request.body).includes(query)).length
      const search = sendJson(`${server.baseUrl}/v1/search`, { user_id: "alice", query })
      yield* search
      yield* search
      expect(asked()).toBe(1)
      expect((yield* forget(server.baseUrl, "alice", server.pin.id, "purge")).body).toMatchObject({ purged: true })
      yield* search
      expect(asked()).toBe(2)
    }))

  it.scopedLive("an answer job that quoted it keeps none of its words in its result", () =>
    Effect.gen(function*() {
      const server = yield* remembered()
      const { baseUrl } = server
      const accepted = yield* sendJson(`${baseUrl}/v1/answer`, { user_id: "alice", question: "what is my PIN number", async_mode: true })
      expect(accepted.status).toBe(202)
      const jobId = (accepted.body as { job_id: string }).job_id
      const job = yield* waitForJob(baseUrl, jobId)
      expect(mentions(JSON.stringify(job.result), "4417")).toBe(true)
      expect((yield* forget(baseUrl, "alice", server.pin.id, "purge")).body).toMatchObject({ deleted: true, purged: true })
      const read = yield* get(`${baseUrl}/v1/jobs/${jobId}`)
      expect(read.status).toBe(200)
      expect(read.body).toMatchObject({ status: "succeeded", kind: "answer" })
      expectNoMention(read.text, "4417", "GET /v1/jobs/{id} of the answer job")
      expectNoMention(JSON.stringify(yield* controlRows(server).select("jobs", { columns: ["payload", "result", "error"], where: { job_id: jobId } })), "4417", "the answer job's row")
    }))

  it.scopedLive("a finished ingest job keeps no copy of the request it was given", () =>
    Effect.gen(function*() {
      const stub = yield* providerStub("openai")
      const server = yield* startServer({ ...llmEnv(stub), SERVICE_ALLOW_PURGE: "true" })
      const accepted = yield* ingest(server.baseUrl, { session_id: "s1", async_mode: true, messages: [{ role: "user", content: TURN }] })
      expect(accepted.status).toBe(202)
      const jobId = (accepted.body as { job_id: string }).job_id
      const job = yield* waitForJob(server.baseUrl, jobId)
      expect(job).toMatchObject({ status: "succeeded", result: { facts_extracted: 3 } })
      expectNoMention(JSON.stringify(job), "4417", "GET /v1/jobs/{id} of the ingest job")
      const stored = yield* controlRows(server).select("jobs", { columns: ["payload", "result", "error"], where: { job_id: jobId } })
      expect(stored).toHaveLength(1)
      expectNoMention(JSON.stringify(stored), "4417", "the ingest job's row")
    }))
})

/** Whether a file, when it exists, holds the text's bytes. */
const fileHolds = (path: string, number: string) => NodeFs.existsSync(path) && mentions(NodeFs.readFileSync(path).toString("latin1"), number)

describe.skipIf(onPostgres)("purge on SQLite: the bytes of the files", () => {
  it.scopedLive("once the store is closed, neither the user's store file nor its write-ahead log holds the purged words", () =>
    Effect.gen(function*() {
      const dataRoot = tempDataRoot()
      const scope = yield* Scope.make()
      const server = yield* Scope.extend(remembered({ SERVICE_DATA_ROOT: dataRoot }), scope)
      const file = storeFile(dataRoot, "alice")
      expect(fileHolds(file, "4417") || fileHolds(`${file}-wal`, "4417")).toBe(true)
      expect((yield* forget(server.baseUrl, "alice", server.pin.id, "purge")).status).toBe(200)
      yield* Scope.close(scope, Exit.void)
      expect(fileHolds(file, "4417"), file).toBe(false)
      expect(fileHolds(`${file}-wal`, "4417"), `${file}-wal`).toBe(false)
    }))

  it.scopedLive("while the service runs, once a checkpoint has followed the purge, neither the store file nor its write-ahead log holds the purged words", () =>
    Effect.gen(function*() {
      const dataRoot = tempDataRoot()
      const server = yield* remembered({ SERVICE_DATA_ROOT: dataRoot })
      const file = storeFile(dataRoot, "alice")
      expect(fileHolds(file, "4417") || fileHolds(`${file}-wal`, "4417")).toBe(true)
      expect((yield* forget(server.baseUrl, "alice", server.pin.id, "purge")).status).toBe(200)
      // A background checkpoint follows these writes within a second.
      for (let i = 0; i < 8; i++) yield* ingest(server.baseUrl, { session_id: `later-${i}`, infer: false, messages: [{ content: `A later note, number ${i}.` }] })
      for (let i = 0; i < 50 && fileHolds(file, "4417"); i++) yield* Effect.sleep("100 millis")
      expect(fileHolds(file, "4417"), file).toBe(false)
      expect(fileHolds(`${file}-wal`, "4417"), `${file}-wal`).toBe(false)
    }))

  it.scopedLive("once the service has stopped, the control database keeps no byte of the purged memory from the ingest job that brought it", () =>
    Effect.gen(function*() {
      const dataRoot = tempDataRoot()
      const scope = yield* Scope.make()
      const stub = yield* providerStub("openai")
      const server = yield* Scope.extend(startServer({ ...llmEnv(stub), SERVICE_DATA_ROOT: dataRoot, SERVICE_ALLOW_PURGE: "true" }), scope)
      const accepted = yield* ingest(server.baseUrl, { session_id: "s1", async_mode: true, messages: [{ role: "user", content: TURN }] })
      yield* waitForJob(server.baseUrl, (accepted.body as { job_id: string }).job_id)
      const pin = (yield* memoriesOf(server.baseUrl, "alice")).find((memory) => memory.content.includes("4417"))
      expect((yield* forget(server.baseUrl, "alice", pin?.id ?? "", "purge")).body).toMatchObject({ purged: true, deleted: true })
      // More jobs after it, so that its pages are written again.
      for (let i = 0; i < 4; i++) {
        const later = yield* ingest(server.baseUrl, { session_id: `later-${i}`, infer: false, async_mode: true, messages: [{ content: `A later note, number ${i}.` }] })
        yield* waitForJob(server.baseUrl, (later.body as { job_id: string }).job_id)
      }
      yield* Scope.close(scope, Exit.void)
      const control = controlFile(dataRoot)
      expect(fileHolds(control, "4417"), control).toBe(false)
      expect(fileHolds(`${control}-wal`, "4417"), `${control}-wal`).toBe(false)
    }))

  it.scopedLive("while the service runs, right after the purge, the control database and its log keep no byte of it from an ingest or answer job", () =>
    Effect.gen(function*() {
      const dataRoot = tempDataRoot()
      const stub = yield* providerStub("openai")
      const server = yield* startServer({ ...llmEnv(stub), SERVICE_DATA_ROOT: dataRoot, SERVICE_ALLOW_PURGE: "true" })
      const accepted = yield* ingest(server.baseUrl, { session_id: "s1", async_mode: true, messages: [{ role: "user", content: TURN }] })
      yield* waitForJob(server.baseUrl, (accepted.body as { job_id: string }).job_id)
      const asked = yield* sendJson(`${server.baseUrl}/v1/answer`, { user_id: "alice", question: "what is my PIN number", async_mode: true })
      yield* waitForJob(server.baseUrl, (asked.body as { job_id: string }).job_id)
      const control = controlFile(dataRoot)
      expect(fileHolds(control, "4417") || fileHolds(`${control}-wal`, "4417")).toBe(true)
      const pin = (yield* memoriesOf(server.baseUrl, "alice")).find((memory) => memory.content.includes("4417"))
      expect((yield* forget(server.baseUrl, "alice", pin?.id ?? "", "purge")).body).toMatchObject({ purged: true, deleted: true })
      expect(fileHolds(control, "4417"), control).toBe(false)
      expect(fileHolds(`${control}-wal`, "4417"), `${control}-wal`).toBe(false)
    }))
})

/** A turn whose second sentence is a secret of its own: the memory taken from it is the one purged. */
interface Secret {
  readonly userId: string
  readonly city: string
  readonly sentence: string
  readonly code: string
  readonly turn: string
}

const CITIES = ["Oslo", "Quito", "Hanoi", "Lagos"]
/** Sentences whose memories open differently, so that none is read as a correction of another. */
const SECRET_SENTENCES = [
  (code: string) => `My door code is ${code}.`,
  (code: string) => `Our alarm passcode is ${code}.`,
  (code: string) => `The safe combination is ${code}.`,
  (code: string) => `Grandma's card number ends in ${code}.`
]

const randomInt = (below: number) => Math.floor(Math.random() * below)

/** Rounds of the SIGKILL case: each ingests new users, purges their secrets, and is killed during the purges. */
const ROUNDS = 3

const http = async (port: number, path: string, init: RequestInit = {}) => {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { ...init, headers: { ...authHeaders(), "content-type": "application/json", ...init.headers } })
  return { status: response.status, body: await response.json() as unknown }
}

describe("a purge cut off by SIGKILL (real processes)", () => {
  it("each purged memory is either whole (memory and its words) or gone (memory gone, its words [redacted]): never half", async () => {
    const stub = await startProviderStub({ provider: "openai" })
    const deployment = await Effect.runPromise(freshDeployment)
    const env = serviceEnv(deployment, { ...llmEnv(stub), SERVICE_EMBED_MODEL: "stub-embed", SERVICE_ALLOW_PURGE: "true" })
    const rows = userRows(deployment)
    const started = Date.now()
    let cutOff = 0
    let service = await startProcess(env)
    try {
      for (let round = 0; round < ROUNDS && Date.now() - started < 90_000; round++) {
        // Three users, each with four turns holding a secret of their own beside a sentence that stays.
        const secrets: Array<Secret> = []
        for (let u = 0; u < 3; u++) {
          const userId = `round${round}-user${u}`
          const turns = CITIES.map((city, k) => {
            const code = String(50_000 + round * 1000 + u * 100 + k * 11)
            const sentence = SECRET_SENTENCES[k]!(code)
            return { userId, city, sentence, code, turn: `I moved to ${city}. ${sentence}` }
          })
          secrets.push(...turns)
          const ingested = await http(service.port, "/v1/memories", {
            method: "POST",
            body: JSON.stringify({ user_id: userId, session_id: "s1", async_mode: false, messages: turns.map((turn) => ({ role: "user", content: turn.turn })) })
          })
          expect(ingested.status, JSON.stringify(ingested.body)).toBe(200)
        }
        const targets = await Promise.all(secrets.map(async (secret) => {
          const listed = await http(service.port, `/v1/memories?user_id=${secret.userId}&limit=500`)
          const memory = (listed.body as { memories: ReadonlyArray<MemoryView> }).memories.find((m) => m.content.includes(secret.code))
          if (memory === undefined) throw new Error(`no memory of ${secret.code}: ${JSON.stringify(listed.body)}`)
          return { ...secret, memoryId: memory.id }
        }))
        const kept = await Promise.all([0, 1, 2].map((u) => Effect.runPromise(rows.count(`round${round}-user${u}`, "facts"))))
        // Slower embeddings widen the moments a kill can land in: a purge embeds its redacted turn again.
        stub.setDelays(0, 15)
        // Each user's purges one after another, the users side by side; the process is killed at a
        // random moment while they run (each takes some tens of milliseconds, its turn embedded again).
        const acknowledged = new Set<string>()
        const dying = service
        const kill = () => dying.child.kill("SIGKILL")
        // (The last round kills early if no round has cut a purge off yet.)
        const killAfterMs = round === ROUNDS - 1 && cutOff === 0 ? randomInt(20) : randomInt(250)
        const killer = setTimeout(kill, killAfterMs)
        await Promise.all([0, 1, 2].map(async (u) => {
          for (const target of targets.filter((t) => t.userId === `round${round}-user${u}`)) {
            try {
              const purged = await http(dying.port, `/v1/memories/${target.memoryId}?user_id=${target.userId}&purge=true`, { method: "DELETE" })
              if (purged.status === 200 && (purged.body as { purged: boolean; deleted: boolean }).deleted) acknowledged.add(target.memoryId)
            } catch {
              // Cut off with the process: not acknowledged, and the next ones are never sent.
              return
            }
          }
        }))
        clearTimeout(killer)
        kill()
        await dying.exited
        stub.setDelays(0, 0)
        cutOff += targets.length - acknowledged.size
        service = await startProcess(env)
        const restarted = service
        let gone = 0
        for (const target of targets) {
          const facts = await Effect.runPromise(rows.count(target.userId, "facts", { fact_id: target.memoryId }))
          const sources = await Effect.runPromise(rows.count(target.userId, "fact_sources", { fact_id: target.memoryId }))
          const turns = await Effect.runPromise(rows.select(target.userId, "turns", { columns: ["content"], orderBy: "seq" }))
          const turn = turns.map((row) => String(row.content)).find((content) => content.startsWith(`I moved to ${target.city}.`))
          const where = `${target.userId} ${target.code}: ${turn} (fact rows ${facts})`
          expect(turn, where).toBeDefined()
          const read = await http(restarted.port, `/v1/memories/${target.memoryId}?user_id=${target.userId}`)
          if (facts === 1) {
            // Whole: the memory and every word of its turn.
            expect(acknowledged.has(target.memoryId), `${where}: acknowledged, yet still there`).toBe(false)
            expect(turn, where).toBe(target.turn)
            expect(sources, where).toBe(1)
            expect(read.status, where).toBe(200)
          } else {
            // Gone: the memory with its sources, and its words, [redacted] where they were.
            expect(facts, where).toBe(0)
            expect(sources, where).toBe(0)
            expectNoMention(turn ?? "", target.code, where)
            expectElided(turn ?? "", target.turn, target.sentence, "[redacted]", where)
            expect(read.status, where).toBe(404)
            // What is left of the turn is found by its words, with or without a vector.
            const found = await http(restarted.port, "/v1/search", { method: "POST", body: JSON.stringify({ user_id: target.userId, query: `moved ${target.city}`, top_k: 50 }) })
            const hits = JSON.stringify((found.body as { hits: unknown }).hits)
            expect(hits, where).toContain(target.city)
            expectNoMention(hits, target.code, where)
            gone += 1
          }
        }
        expect(gone).toBeGreaterThanOrEqual(acknowledged.size)
        // The users' other memories are all there, and the purges left undone can be done now.
        for (const target of targets) {
          await http(restarted.port, `/v1/memories/${target.memoryId}?user_id=${target.userId}&purge=true`, { method: "DELETE" })
          const [turn] = await Effect.runPromise(rows.select(target.userId, "turns", { columns: ["content"], where: { turn_id: `s1_turn_${CITIES.indexOf(target.city) + 1}` } }))
          expectElided(String(turn?.content), target.turn, target.sentence, "[redacted]", `${target.userId} ${target.code} purged after the restart`)
        }
        const left = await Promise.all([0, 1, 2].map((u) => Effect.runPromise(rows.count(`round${round}-user${u}`, "facts"))))
        expect(left).toEqual(kept.map((count) => count - CITIES.length))
      }
      // The kills landed while purges were still under way (else nothing above was cut off).
      expect(cutOff).toBeGreaterThan(0)
    } finally {
      service.child.kill("SIGKILL")
      await service.exited
      await stub.close()
    }
  }, 180_000)
})

describe.skipIf(onPostgres)("a purge cut off by SIGKILL between the user's store and the control plane (SQLite, real processes)", () => {
  it("a job result that quoted the memory keeps none of its words once the memory is gone, even when the process died in between", async () => {
    const stub = await startProviderStub({ provider: "openai" })
    const deployment = await Effect.runPromise(freshDeployment)
    const env = serviceEnv(deployment, { ...llmEnv(stub), SERVICE_EMBED_MODEL: "stub-embed", SERVICE_ALLOW_PURGE: "true" })
    const rows = userRows(deployment)
    let service = await startProcess(env)
    try {
      const ingested = await http(service.port, "/v1/memories", {
        method: "POST",
        body: JSON.stringify({ user_id: "alice", session_id: "s1", async_mode: false, messages: [{ role: "user", content: TURN }] })
      })
      expect(ingested.status).toBe(200)
      const listed = await http(service.port, "/v1/memories?user_id=alice")
      const pin = (listed.body as { memories: ReadonlyArray<MemoryView> }).memories.find((memory) => memory.content.includes("4417"))
      expect(pin).toBeDefined()
      const pinId = pin?.id ?? ""
      const accepted = await http(service.port, "/v1/answer", { method: "POST", body: JSON.stringify({ user_id: "alice", question: "what is my PIN number", async_mode: true }) })
      const jobId = (accepted.body as { job_id: string }).job_id
      let job = await http(service.port, `/v1/jobs/${jobId}`)
      for (let i = 0; i < 250 && (job.body as { status: string }).status !== "succeeded"; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20))
        job = await http(service.port, `/v1/jobs/${jobId}`)
      }
      expect(mentions(JSON.stringify(job.body), "4417")).toBe(true)
      // Another connection holds the control database's write lock: whatever the purge writes there waits.
      const control = new Database(controlFile(deployment.dataRoot))
      control.exec("BEGIN IMMEDIATE")
      const dying = service
      const purge = http(dying.port, `/v1/memories/${pinId}?user_id=alice&purge=true`, { method: "DELETE" }).catch(() => undefined)
      // The process dies once the user's store has committed the purge (or, if it writes the control plane first, while it waits).
      for (let i = 0; i < 100 && await Effect.runPromise(rows.count("alice", "facts", { fact_id: pinId })) > 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      await new Promise((resolve) => setTimeout(resolve, 200))
      dying.child.kill("SIGKILL")
      await dying.exited
      await purge
      control.exec("ROLLBACK")
      control.close()
      service = await startProcess(env)
      const gone = await Effect.runPromise(rows.count("alice", "facts", { fact_id: pinId })) === 0
      const read = await http(service.port, `/v1/jobs/${jobId}`)
      expect(read.status).toBe(200)
      if (gone) {
        const [turn] = await Effect.runPromise(rows.select("alice", "turns", { columns: ["content"], where: { turn_id: "s1_turn_1" } }))
        expectElided(String(turn?.content), TURN, EXCERPT, "[redacted]", "the stored turn")
        expectNoMention(JSON.stringify(read.body), "4417", "the answer job's result, the memory being gone")
      } else {
        // Not begun: the memory and its turn are whole; the purge can be sent again, and then the result loses the words.
        expect(await Effect.runPromise(rows.select("alice", "turns", { columns: ["content"], where: { turn_id: "s1_turn_1" } }))).toEqual([{ content: TURN }])
        await http(service.port, `/v1/memories/${pinId}?user_id=alice&purge=true`, { method: "DELETE" })
        expectNoMention(JSON.stringify((await http(service.port, `/v1/jobs/${jobId}`)).body), "4417", "the answer job's result, purged after the restart")
      }
    } finally {
      service.child.kill("SIGKILL")
      await service.exited
      await stub.close()
    }
  }, 120_000)
})

/** Asks a process started with `--heapsnapshot-signal=SIGUSR2` for a heap snapshot and reads it once written whole. */
const heapSnapshot = async (pid: number | undefined, directory: string) => {
  if (pid === undefined) throw new Error("the process has no pid")
  process.kill(pid, "SIGUSR2")
  let size = -1
  for (let attempt = 0; attempt < 120; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 500))
    const [file] = NodeFs.readdirSync(directory).filter((name) => name.endsWith(".heapsnapshot"))
    if (file === undefined) continue
    const now = NodeFs.statSync(`${directory}/${file}`).size
    // Written in one go by the process: whole once its size holds still.
    if (now > 0 && now === size) return NodeFs.readFileSync(`${directory}/${file}`, "utf8")
    size = now
  }
  throw new Error("no heap snapshot was written")
}

describe("a purged user and the process's memory (real process)", () => {
  it("after a search (its query's vector remembered), a context block and the purge, the heap holds none of the user's words, nor a later query's", async () => {
    const word = "Qxzvblorptangent"
    // A query whose vector is remembered after the purge, as on a replica the purge did not reach.
    const laterWord = "Wmyqorbsplendid"
    const snapshots = NodeFs.mkdtempSync(`${NodeOs.tmpdir()}/heap-`)
    const stub = await startProviderStub({ provider: "openai" })
    const deployment = await Effect.runPromise(freshDeployment)
    const service = await startProcess(serviceEnv(deployment, {
      ...llmEnv(stub),
      SERVICE_EMBED_MODEL: "stub-embed",
      SERVICE_ALLOW_PURGE: "true",
      NODE_OPTIONS: `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${snapshots}`
    }))
    try {
      const ingested = await http(service.port, "/v1/memories", {
        method: "POST",
        body: JSON.stringify({ user_id: "zed", infer: false, async_mode: false, messages: [{ role: "user", content: `My cat ${word} likes tuna` }] })
      })
      expect(ingested.status).toBe(200)
      const searched = await http(service.port, "/v1/search", { method: "POST", body: JSON.stringify({ user_id: "zed", query: `is ${word} my cat` }) })
      expect(searched.body).toMatchObject({ degraded: [] })
      const context = await http(service.port, "/v1/context", { method: "POST", body: JSON.stringify({ user_id: "zed", query: "cat tuna" }) })
      expect(JSON.stringify(context.body)).toContain(word)
      const purged = await http(service.port, "/v1/memories?user_id=zed&purge=true", { method: "DELETE" })
      expect(purged.body).toMatchObject({ purged: true })
      const other = await http(service.port, "/v1/memories", {
        method: "POST",
        body: JSON.stringify({ user_id: "amy", infer: false, async_mode: false, messages: [{ role: "user", content: "My dog likes walks" }] })
      })
      expect(other.status).toBe(200)
      const later = await http(service.port, "/v1/search", { method: "POST", body: JSON.stringify({ user_id: "amy", query: `does ${laterWord} like walks` }) })
      expect(later.body).toMatchObject({ degraded: [] })
      const heap = await heapSnapshot(service.child.pid, snapshots)
      for (const kept of [word, laterWord]) {
        const found = heap.indexOf(kept)
        // What holds it, if anything: the text around the first string that mentions it.
        expect(found === -1 ? null : heap.slice(Math.max(0, found - 200), found + 200)).toBeNull()
      }
    } finally {
      service.child.kill("SIGKILL")
      await service.exited
      await stub.close()
      NodeFs.rmSync(snapshots, { recursive: true, force: true })
    }
  }, 120_000)
})
