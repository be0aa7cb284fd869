import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { MAX_CONTENT_BYTES, utf8Length } from "../src/api/text.js"
import { respond as brainReply } from "../scripts/stubs/brain.js"
import type { StubChat } from "../scripts/stubs/llm-providers.js"
import { runCli } from "./support/cli.js"
import { llmEnv, providerStub } from "./support/llm.js"
import { API_KEY, authHeaders, ingestTurn, rawFetch, sendJson, startServer } from "./support/server.js"
import { controlRows, userRows } from "./support/userRows.js"

interface FieldError {
  readonly type: string
  readonly loc: ReadonlyArray<string | number>
}

const refusal = (response: { readonly status: number; readonly body: unknown }) => {
  expect(response.status).toBe(422)
  const body = response.body as { code: string; details: { errors: ReadonlyArray<FieldError> } }
  expect(body.code).toBe("validation_error")
  return body.details.errors.map(({ loc, type }) => ({ type, loc }))
}

const get = (url: string) => rawFetch(url, { headers: authHeaders() })

const add = (fields: Record<string, unknown>) => ({
  user_id: "writer",
  session_id: "s1",
  infer: false,
  async_mode: false,
  messages: [{ role: "user", content: "I adopted a beagle named Rex." }],
  ...fields
})

/** Distinct made-up words, so that every one is a lexeme of its own: the most a turn can ask of a word index. */
const distinctWords = (bytes: number) => {
  const words: Array<string> = []
  let size = 0
  for (let i = 0; size + 9 <= bytes; i++) {
    words.push(`w${i.toString(36).padStart(7, "q")}`)
    size += 9
  }
  return words.join(" ").padEnd(bytes, "z")
}

describe("the text rule: NUL and lone surrogates are refused in every field a client sends", () => {
  it.scoped("NUL in each class of field is 422 naming the field, and nothing is stored", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const { baseUrl } = server
      const nul = "a\u0000b"
      const cases: ReadonlyArray<readonly [string, Effect.Effect<{ readonly status: number; readonly body: unknown }>, ReadonlyArray<string | number>]> = [
        ["content", sendJson(`${baseUrl}/v1/memories`, add({ messages: [{ content: "fine" }, { content: nul }] })), ["body", "messages", 1, "content"]],
        ["session id", sendJson(`${baseUrl}/v1/memories`, add({ session_id: nul })), ["body", "session_id"]],
        ["scope key", sendJson(`${baseUrl}/v1/memories`, add({ project_id: nul })), ["body", "project_id"]],
        ["user id", sendJson(`${baseUrl}/v1/memories`, add({ user_id: nul })), ["body", "user_id"]],
        ["session time", sendJson(`${baseUrl}/v1/memories`, add({ session_time: `2024-01-01${nul}` })), ["body", "session_time"]],
        ["search query", sendJson(`${baseUrl}/v1/search`, { user_id: "writer", query: nul }), ["body", "query"]],
        ["context query", get(`${baseUrl}/v1/context?user_id=writer&query=a%00b`), ["query", "query"]],
        ["refine filter", sendJson(`${baseUrl}/v1/refine`, { user_id: "writer", query: "beagle", entity: nul }), ["body", "entity"]],
        ["answer question", sendJson(`${baseUrl}/v1/answer`, { user_id: "writer", question: nul }), ["body", "question"]],
        ["query scope key", get(`${baseUrl}/v1/memories?user_id=writer&agent_id=a%00b`), ["query", "agent_id"]],
        ["memory id", get(`${baseUrl}/v1/memories/a%00b?user_id=writer`), ["path", "memory_id"]],
        ["correction", sendJson(`${baseUrl}/v1/memories/m1`, { user_id: "writer", content: nul }, "PATCH"), ["body", "content"]],
        ["explore start", get(`${baseUrl}/v1/explore?user_id=writer&start_id=a%00b`), ["query", "start_id"]],
        ["timeline entity", get(`${baseUrl}/v1/entity_timeline?user_id=writer&entity_id=a%00b`), ["query", "entity_id"]],
        ["event type", get(`${baseUrl}/v1/events?user_id=writer&type=a%00b`), ["query", "type"]],
        ["job id", get(`${baseUrl}/v1/jobs/a%00b`), ["path", "job_id"]],
        ["key name", sendJson(`${baseUrl}/v1/admin/keys`, { name: nul }), ["body", "name"]]
      ]
      for (const [label, request, loc] of cases) {
        const response = yield* request
        expect(refusal(response), label).toEqual([{ type: "string_nul", loc }])
      }
      expect(yield* userRows(server).users).toEqual([])
      expect(yield* controlRows(server).count("jobs")).toBe(0)
      const keys = yield* get(`${baseUrl}/v1/admin/keys`)
      expect((keys.body as { total: number }).total).toBe(0)
    }))

  it.scoped("a lone surrogate, high or low, in a session id is 422; a surrogate pair is text like any other", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      for (const sessionId of ["\ud800", "\udc01", "x\ud801", "\udc00\ud800"]) {
        const response = yield* sendJson(`${server.baseUrl}/v1/memories`, add({ session_id: sessionId }))
        expect(refusal(response), JSON.stringify(sessionId)).toEqual([{ type: "string_unicode", loc: ["body", "session_id"] }])
      }
      expect(yield* userRows(server).users).toEqual([])
      const pair = yield* sendJson(`${server.baseUrl}/v1/memories`, add({ session_id: "s\u{1F600}" }))
      expect(pair.status).toBe(200)
      expect(pair.body).toMatchObject({ session_id: "s\u{1F600}", turns_written: 1 })
    }))

  it.scoped("a session id is at most 512 UTF-16 units, so that the keys made from it fit PostgreSQL's B-tree entries", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      let state = 12345
      const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31) >> 16
      // Characters of three UTF-8 bytes that do not compress: the largest entry such an id makes.
      const longest = Array.from({ length: 512 }, () => String.fromCharCode(0x4e00 + next() % 20_000)).join("")
      const stored = yield* sendJson(`${baseUrl}/v1/memories`, add({ session_id: longest }))
      expect(stored.status).toBe(200)
      expect(stored.body).toMatchObject({ session_id: longest, turns_written: 1 })
      // Letters that do not compress: PostgreSQL would refuse them as an index entry over 2704 bytes.
      const random = Array.from({ length: 3000 }, () => String.fromCharCode(33 + next() % 90)).join("")
      const over = yield* sendJson(`${baseUrl}/v1/memories`, add({ session_id: random }))
      expect(refusal(over)).toEqual([{ type: "string_too_long", loc: ["body", "session_id"] }])
    }))

  it.scoped("the CLI refuses such text before sending it, with the field it is in", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const run = yield* runCli(["add", "--user", "writer", "--no-infer", "--file", "-"], {
        env: { SERVICE_API_URL: server.baseUrl, SERVICE_API_KEY: API_KEY },
        stdin: JSON.stringify([{ content: "fine" }, { content: "a\u0000b" }]),
        timeoutMs: 60_000
      })
      expect(run.code).toBe(1)
      expect(run.stderr).toMatch(/^validation_error: [\s\S]*String should not contain the NUL character/)
      expect(yield* userRows(server).users).toEqual([])
    }), 90_000)

  it.scoped("an asynchronous ingest with NUL is refused with 422 before a job is accepted", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const response = yield* sendJson(`${server.baseUrl}/v1/memories`, add({ async_mode: true, messages: [{ content: "x\u0000" }] }))
      expect(refusal(response)).toEqual([{ type: "string_nul", loc: ["body", "messages", 0, "content"] }])
      expect(yield* controlRows(server).count("jobs")).toBe(0)
      expect(yield* userRows(server).users).toEqual([])
    }))

  it.scoped("in a batch, a session with NUL is a failed item naming its field; the others are written", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const response = yield* sendJson(`${baseUrl}/v1/memories/batch`, {
        user_id: "writer",
        infer: false,
        async_mode: false,
        sessions: [{ session_id: "bad", messages: [{ content: "x\u0000" }] }, { session_id: "good", messages: [{ content: "fine" }] }]
      })
      expect(response.status).toBe(200)
      const { results } = response.body as { results: ReadonlyArray<{ ok: boolean; error: string | null }> }
      expect(results.map(({ ok }) => ok)).toEqual([false, true])
      expect(results[0]?.error).toMatch(/^validation_error: sessions\[0\]\.messages\[0\]\.content: String should not contain the NUL character/)
    }))
})

describe("a query of any size", () => {
  it.scoped("a query of 1.3 MB of distinct words is read by its first words: search, context and refine answer 200 on either backend", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      expect((yield* ingestTurn(baseUrl, "writer", "Alice adopted a beagle")).status).toBe(200)
      const query = distinctWords(1_300_000)
      for (const path of ["/v1/search", "/v1/context", "/v1/refine"]) {
        const response = yield* sendJson(`${baseUrl}${path}`, { user_id: "writer", query })
        expect(response.status, path).toBe(200)
      }
    }), 120_000)
})

describe("the size of a turn", () => {
  it.scoped("a turn over the limit is 422 naming it; one at the limit is stored and searchable to its last word", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const over = yield* sendJson(`${baseUrl}/v1/memories`, add({ messages: [{ content: "ok" }, { content: "é".repeat(MAX_CONTENT_BYTES / 2 + 1) }] }))
      expect(refusal(over)).toEqual([{ type: "string_too_long", loc: ["body", "messages", 1, "content"] }])
      expect((over.body as { details: { errors: ReadonlyArray<{ ctx: unknown }> } }).details.errors[0]?.ctx).toEqual({ max_bytes: MAX_CONTENT_BYTES })
      // What PostgreSQL could not index at all (more than 1 MiB of distinct lexemes) is refused the same way.
      const unindexable = yield* sendJson(`${baseUrl}/v1/memories`, add({ messages: [{ content: distinctWords(1_300_000) }] }))
      expect(refusal(unindexable)).toEqual([{ type: "string_too_long", loc: ["body", "messages", 0, "content"] }])
      const correction = yield* sendJson(`${baseUrl}/v1/memories/m1`, { user_id: "writer", content: "x".repeat(MAX_CONTENT_BYTES + 1) }, "PATCH")
      expect(refusal(correction)).toEqual([{ type: "string_too_long", loc: ["body", "content"] }])

      const content = distinctWords(MAX_CONTENT_BYTES)
      expect(utf8Length(content)).toBe(MAX_CONTENT_BYTES)
      const stored = yield* ingestTurn(baseUrl, "writer", content)
      expect(stored.status).toBe(200)
      const lastWord = content.trimEnd().split(" ").at(-2) ?? ""
      const found = yield* sendJson(`${baseUrl}/v1/search`, { user_id: "writer", query: lastWord })
      expect(found.status).toBe(200)
      expect((found.body as { hits: ReadonlyArray<unknown> }).hits.length).toBeGreaterThan(0)
    }), 120_000)
})

/** A provider whose every statement, name, answer and summary ends with NUL and a lone surrogate. */
const unstorableReplies = (request: StubChat): unknown => {
  const spoil = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(spoil)
      : typeof value === "object" && value !== null
      ? Object.fromEntries(Object.entries(value).map(([key, field]) =>
        [key, typeof field === "string" && SPOILED_FIELDS.has(key) ? `${field}\u0000\ud800` : spoil(field)]))
      : value
  return spoil(brainReply(request))
}
const SPOILED_FIELDS = new Set(["statement", "name", "answer", "summary"])

describe("text an LLM provider sends", () => {
  it.scoped("NUL is dropped and a lone surrogate becomes U+FFFD before anything is stored or answered, on either backend", () =>
    Effect.gen(function*() {
      const stub = yield* providerStub("openai", { respond: unstorableReplies })
      const { baseUrl } = yield* startServer(llmEnv(stub))
      const ingested = yield* sendJson(`${baseUrl}/v1/memories`, add({ infer: true, messages: [{ role: "user", content: "I adopted a beagle named Rex." }] }))
      expect(ingested.status).toBe(200)
      const listed = yield* get(`${baseUrl}/v1/memories?user_id=writer`)
      const facts = (listed.body as { memories: ReadonlyArray<{ kind: string; content: string }> }).memories.filter(({ kind }) => kind !== "turn")
      expect(facts.length).toBeGreaterThan(0)
      for (const { content } of facts) {
        expect(content).not.toContain("\u0000")
        expect(content.endsWith("\ufffd")).toBe(true)
      }
      const timeline = yield* get(`${baseUrl}/v1/entity_timeline?user_id=writer&entity_id=rex`)
      expect(timeline.status).toBe(200)
      expect(JSON.stringify(timeline.body)).not.toContain("\\u0000")
      expect((timeline.body as { items: ReadonlyArray<unknown> }).items.length).toBeGreaterThan(0)

      const answered = yield* sendJson(`${baseUrl}/v1/answer`, { user_id: "writer", question: "What did I adopt?" })
      expect(answered.status).toBe(200)
      const { answer } = answered.body as { answer: string }
      expect(answer).not.toContain("\u0000")
      expect(answer.endsWith("\ufffd")).toBe(true)
    }))
})
