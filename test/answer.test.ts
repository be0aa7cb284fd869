import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { ProviderStub } from "../scripts/stubs/llm-providers.js"
import { chatRequests, llmEnv, providerStub } from "./support/llm.js"
import { authHeaders, rawFetch, sendJson, startServer, usageReport as usage, waitForJob } from "./support/server.js"

interface AnswerView {
  readonly answer: string
  readonly citations: ReadonlyArray<string>
  readonly termination: string
  readonly planner_steps: number
  readonly insufficient: boolean
  readonly missing_information: string
  readonly usage: Record<string, unknown>
}

const remember = (baseUrl: string, contents: ReadonlyArray<string>) =>
  sendJson(`${baseUrl}/v1/memories`, { user_id: "alice", infer: false, async_mode: false, messages: contents.map((content) => ({ content })) })

const ask = (baseUrl: string, body: Record<string, unknown>) => sendJson(`${baseUrl}/v1/answer`, { user_id: "alice", ...body })

/** What each chat call asked of the (OpenAI) stub: its token budget, temperature and the input's current_date. */
const sentToProvider = (stub: ProviderStub) =>
  chatRequests(stub).map((request) => {
    const body = request.body as { max_completion_tokens: number; temperature: number; messages: Array<{ content: string }> }
    const input = JSON.parse(body.messages[1]!.content) as { current_date: string }
    return { maxTokens: body.max_completion_tokens, temperature: body.temperature, currentDate: input.current_date }
  })

describe("POST /v1/answer", () => {
  it.scoped("plans a search, then reads: an answer from memory with citations and this answer's usage", () =>
    Effect.gen(function*() {
      const stub = yield* providerStub("openai")
      const { baseUrl } = yield* startServer(llmEnv(stub))
      yield* remember(baseUrl, ["I adopted a dog named Rex in 2021.", "My sister lives in Oslo."])
      const response = yield* ask(baseUrl, { question: "What is the name of my dog?" })
      expect(response.status).toBe(200)
      const answer = response.body as AnswerView
      expect(answer).toMatchObject({ termination: "planner_final", planner_steps: 2, insufficient: false, missing_information: "" })
      expect(answer.answer).toContain("Rex")
      expect(answer.citations[0]).toMatch(/^ev_raw:.+_turn_1$/)
      expect(answer.usage).toMatchObject({ calls: 3, by_phase: { plan: { calls: 2 }, read: { calls: 1 } }, served_models: [expect.any(String)] })
      expect(answer.usage.calls_detail).toHaveLength(3)
      // The reader saw the evidence the planner's search found.
      const read = chatRequests(stub).at(-1)!
      expect(JSON.stringify(read.body)).toContain("adopted a dog named Rex")
      const report = yield* usage(baseUrl)
      expect(report.by_operation).toMatchObject({ answer: { calls: 3, calls_with_usage: 3 } })
      expect(report.total).toMatchObject({ calls: 3 })
    }))

  it.scoped("says when memory holds nothing on the question; max_steps bounds the planner", () =>
    Effect.gen(function*() {
      const stub = yield* providerStub("openai")
      const { baseUrl } = yield* startServer(llmEnv(stub))
      yield* remember(baseUrl, ["I adopted a dog named Rex in 2021."])
      const unknown = (yield* ask(baseUrl, { question: "Which violin brand do I play?" })).body as AnswerView
      expect(unknown).toMatchObject({ insufficient: true, citations: [] })
      expect(unknown.missing_information).not.toBe("")
      // Two searches in a row that find nothing new stop the planner.
      const empty = (yield* ask(baseUrl, { user_id: "nobody", question: "What is the name of my dog?" })).body as AnswerView
      expect(empty).toMatchObject({ termination: "stall_stop_reader_fallback", planner_steps: 2, insufficient: true, citations: [] })
      const bounded = (yield* ask(baseUrl, { question: "What is the name of my dog?", max_steps: 1 })).body as AnswerView
      expect(bounded).toMatchObject({ termination: "max_steps_reader_fallback", planner_steps: 1 })
      expect(bounded.answer).toContain("Rex")
    }))

  it.scopedLive("async_mode: 202 then an answer job whose result is the answer", () =>
    Effect.gen(function*() {
      const stub = yield* providerStub("openai")
      const { baseUrl } = yield* startServer(llmEnv(stub))
      yield* remember(baseUrl, ["I adopted a dog named Rex in 2021."])
      const accepted = yield* ask(baseUrl, { question: "What is the name of my dog?", async_mode: true })
      expect(accepted.status).toBe(202)
      expect(Object.keys(accepted.body as object).sort()).toEqual(["job_id", "status"])
      const job = yield* waitForJob(baseUrl, (accepted.body as { job_id: string }).job_id)
      expect(job).toMatchObject({ status: "succeeded", kind: "answer", result: { termination: "planner_final" } })
      expect((job.result as AnswerView).answer).toContain("Rex")
    }))

  it.scoped("a provider failure is its provider_* code (after retries)", () =>
    Effect.gen(function*() {
      const stub = yield* providerStub("openai")
      const { baseUrl } = yield* startServer(llmEnv(stub))
      stub.failNext(429, 10)
      const response = yield* ask(baseUrl, { question: "What is the name of my dog?" })
      expect(response.status).toBe(400)
      expect(response.body).toMatchObject({ code: "provider_rate_limited" })
    }))

  it.scoped("without an LLM: 503 service_unavailable, sync and async, and /v1/usage stays empty", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const sync = yield* ask(baseUrl, { question: "anything?" })
      expect(sync.status).toBe(503)
      expect(sync.body).toMatchObject({ code: "service_unavailable" })
      expect((sync.body as { message: string }).message).toMatch(/^\/v1\/answer needs an LLM provider/)
      const later = yield* ask(baseUrl, { question: "anything?", async_mode: true })
      expect(later.status).toBe(503)
      expect(yield* usage(baseUrl)).toEqual({ by_operation: {}, total: {} })
    }))

  it.scoped("validates its bounds", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const outside = [
        { question: "" },
        { question: "q", max_steps: 0 },
        { question: "q", max_steps: 25 },
        { question: "q", planner_max_tokens: 63 },
        { question: "q", planner_max_tokens: 8193 },
        { question: "q", reader_max_tokens: 63 },
        { question: "q", reader_max_tokens: 16385 },
        { question: "q", temperature: -0.1 },
        { question: "q", temperature: 2.5 },
        { question: "q", extra: 1 }
      ]
      for (const body of outside) {
        const response = yield* ask(baseUrl, body)
        expect(response.status, JSON.stringify(body)).toBe(422)
        expect(response.body, JSON.stringify(body)).toMatchObject({ code: "validation_error" })
      }
      // At the bounds the request is valid: without an LLM it gets as far as the 503.
      const edges = [
        { question: "q", max_steps: 1, planner_max_tokens: 64, reader_max_tokens: 64, temperature: 0 },
        { question: "q", max_steps: 24, planner_max_tokens: 8192, reader_max_tokens: 16384, temperature: 2 }
      ]
      for (const body of edges) expect((yield* ask(baseUrl, body)).status, JSON.stringify(body)).toBe(503)
    }))

  it.scoped("sends the provider its defaults: 1200 planner and 3000 reader tokens, temperature 0, today's local date", () =>
    Effect.gen(function*() {
      const stub = yield* providerStub("openai")
      const { baseUrl } = yield* startServer(llmEnv(stub))
      yield* remember(baseUrl, ["I adopted a dog named Rex in 2021."])
      const localDate = () => {
        const now = new Date()
        return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, "0")}-${String(now.getDate()).padStart(2, "0")}`
      }
      const before = localDate()
      yield* ask(baseUrl, { question: "What is the name of my dog?" })
      const after = localDate()
      const sent = sentToProvider(stub)
      expect(sent.map((call) => call.maxTokens)).toEqual([1200, 1200, 3000])
      expect(sent.every((call) => call.temperature === 0)).toBe(true)
      for (const call of sent) expect([before, after]).toContain(call.currentDate)
      // What the caller sets is what the provider gets.
      yield* ask(baseUrl, { question: "What is the name of my dog?", current_date: "2030-01-15", planner_max_tokens: 500, reader_max_tokens: 700, temperature: 0.5 })
      expect(sentToProvider(stub).slice(3)).toEqual([
        { maxTokens: 500, temperature: 0.5, currentDate: "2030-01-15" },
        { maxTokens: 500, temperature: 0.5, currentDate: "2030-01-15" },
        { maxTokens: 700, temperature: 0.5, currentDate: "2030-01-15" }
      ])
    }))

  it.scopedLive("async with a user_id outside the allowlist: 202, then a failed job naming invalid_scope", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer(llmEnv(yield* providerStub("openai")))
      const accepted = yield* ask(baseUrl, { user_id: "../etc", question: "anything?", async_mode: true })
      expect(accepted.status).toBe(202)
      const job = yield* waitForJob(baseUrl, (accepted.body as { job_id: string }).job_id)
      expect(job).toMatchObject({ status: "failed", kind: "answer", result: null })
      expect(job.error).toMatch(/^invalid_scope: /)
    }))
})

describe("every provider end to end", () => {
  for (const provider of ["openai", "anthropic", "gemini", "ollama"] as const) {
    it.scoped(`${provider}: extraction with provenance, then an answer with citations`, () =>
      Effect.gen(function*() {
        const stub = yield* providerStub(provider)
        const { baseUrl } = yield* startServer(llmEnv(stub))
        const ingested = yield* sendJson(`${baseUrl}/v1/memories`, {
          user_id: "alice",
          async_mode: false,
          session_time: "2024-04-02",
          messages: [{ content: "I started learning the piano yesterday." }]
        })
        expect(ingested.body).toMatchObject({ facts_extracted: 1 })
        const listed = yield* rawFetch(`${baseUrl}/v1/memories?user_id=alice`, { headers: authHeaders() })
        expect((listed.body as { memories: Array<Record<string, unknown>> }).memories[0]).toMatchObject({
          content: "The user started learning the piano yesterday.",
          occurred_at: "2024-04-01",
          metadata: { extracted_by: { provider } }
        })
        const answer = (yield* ask(baseUrl, { question: "When did I start learning the piano?" })).body as AnswerView
        expect(answer.answer).toContain("piano")
        expect(answer.citations.length).toBeGreaterThan(0)
        const report = yield* usage(baseUrl)
        expect(Object.keys(report.by_operation!).sort()).toEqual(["answer", "ingest"])
      }))
  }
})
