import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { apiClient, authHeaders, rawFetch, sendJson, startServer, waitForJob } from "./support/server.js"
import { userRows } from "./support/userRows.js"

const post = (baseUrl: string, body: unknown) => sendJson(`${baseUrl}/v1/memories`, body)

describe("POST /v1/memories with infer=false", () => {
  it.scoped("sync: stores the non-empty turns verbatim with one span each and answers the counts", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const { baseUrl } = server
      const response = yield* post(baseUrl, {
        user_id: "alice",
        session_id: "s1",
        session_time: "2024-03-05",
        infer: false,
        async_mode: false,
        messages: [
          { role: "user", content: "I moved to Lisbon in March." },
          { role: "assistant", content: "   " },
          { content: "My dog is called Pixel." }
        ]
      })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ session_id: "s1", facts_extracted: 0, spans_written: 2, turns_written: 2 })
      const rows = userRows(server)
      expect(yield* rows.select("alice", "turns", { columns: ["turn_id", "position", "role", "content"], orderBy: "seq" })).toEqual([
        { turn_id: "s1_turn_1", position: 1, role: "user", content: "I moved to Lisbon in March." },
        { turn_id: "s1_turn_2", position: 2, role: "user", content: "My dog is called Pixel." }
      ])
      expect(yield* rows.select("alice", "spans", { columns: ["span_id"], orderBy: "span_id" })).toEqual([{ span_id: "span_s1_1" }, { span_id: "span_s1_2" }])
      expect(yield* rows.select("alice", "sessions", { columns: ["session_time"] })).toEqual([{ session_time: "2024-03-05" }])
    }))

  it.scopedLive("async is the default: 202 with a job that succeeds with the counts", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const response = yield* post(baseUrl, { user_id: "alice", infer: false, messages: [{ content: "hello" }] })
      expect(response.status).toBe(202)
      const accepted = response.body as { job_id: string; status: string; session_id: string }
      expect(accepted.status).toBe("pending")
      expect(accepted.job_id).toMatch(/^[0-9a-f]{32}$/)
      expect(accepted.session_id).toMatch(/^[0-9a-f]{32}$/)
      const job = yield* waitForJob(baseUrl, accepted.job_id)
      expect(job).toMatchObject({
        status: "succeeded",
        kind: "ingest",
        user_id: "alice",
        error: null,
        result: { session_id: accepted.session_id, facts_extracted: 0, spans_written: 1, turns_written: 1 }
      })
      expect(job.finished_at).not.toBeNull()
    }))

  it.scoped("a session sent in parts continues its positions", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const client = yield* apiClient(server.baseUrl)
      for (const content of ["one", "two"]) {
        yield* client.memories.add({ payload: { user_id: "u", session_id: "s", infer: false, async_mode: false, messages: [{ role: "user", content }] } })
      }
      expect(yield* userRows(server).select("u", "turns", { columns: ["turn_id", "content"], orderBy: "seq" })).toEqual([
        { turn_id: "s_turn_1", content: "one" },
        { turn_id: "s_turn_2", content: "two" }
      ])
    }))

  it.scoped("a request of 5,000 turns is stored whole, positions in order: more rows than one PostgreSQL statement binds", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const messages = Array.from({ length: 5_000 }, (_, i) => ({ content: `note ${i}` }))
      const stored = yield* post(server.baseUrl, { user_id: "u", session_id: "s", infer: false, async_mode: false, messages })
      expect({ status: stored.status, body: stored.body }).toEqual({ status: 200, body: { session_id: "s", facts_extracted: 0, spans_written: 5_000, turns_written: 5_000 } })
      const turns = yield* userRows(server).select("u", "turns", { columns: ["turn_id", "position", "content"], orderBy: "seq" })
      expect(turns).toHaveLength(5_000)
      expect(turns.every((turn, i) => turn.position === i + 1 && turn.turn_id === `s_turn_${i + 1}` && turn.content === `note ${i}`)).toBe(true)
      expect(yield* userRows(server).select("u", "spans", { columns: ["span_id"] })).toHaveLength(5_000)
      const found = yield* sendJson(`${server.baseUrl}/v1/search`, { user_id: "u", query: "note 4999" })
      expect((found.body as { hits: Array<{ content: string }> }).hits.map((hit) => hit.content)).toContain("note 4999")
    }), 120_000)

  it.scoped("stamps the scope keys on the turns; an empty key means unset", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      yield* post(server.baseUrl, { user_id: "u", agent_id: "planner", project_id: "", infer: false, async_mode: false, messages: [{ content: "x" }] })
      expect(yield* userRows(server).select("u", "turns", { columns: ["agent_id", "run_id", "project_id"] })).toEqual([{ agent_id: "planner", run_id: null, project_id: null }])
    }))

  it.scoped("records an audit event with the actor and request id in the same write", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      yield* rawFetch(`${baseUrl}/v1/memories`, {
        method: "POST",
        headers: { ...authHeaders(), "content-type": "application/json", "x-request-id": "req-42" },
        body: JSON.stringify({ user_id: "u", session_id: "s", infer: false, async_mode: false, messages: [{ content: "x" }] })
      })
      const { events } = (yield* rawFetch(`${baseUrl}/v1/events?user_id=u`, { headers: authHeaders() })).body as { events: Array<Record<string, unknown>> }
      expect(events).toHaveLength(1)
      expect(events[0]).toMatchObject({
        type: "memory_add",
        session_id: "s",
        reason: "1 turns stored verbatim (infer=false)",
        details: { actor: "bootstrap", request_id: "req-42", turns_written: 1 }
      })
      expect(events[0]?.event_id).toMatch(/^trace_[0-9a-f-]{36}$/)
    }))
})

describe("POST /v1/memories refusals", () => {
  it.scoped("infer=true without an LLM provider is 400 config_invalid and writes nothing", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const { baseUrl } = server
      for (const asyncMode of [true, false]) {
        const response = yield* post(baseUrl, { user_id: "bob", async_mode: asyncMode, messages: [{ content: "x" }] })
        expect(response.status).toBe(400)
        expect(response.body).toMatchObject({ code: "config_invalid" })
        expect((response.body as { message: string }).message).toContain("SERVICE_LLM_API_KEY")
      }
      expect(yield* userRows(server).users).toEqual([])
    }))

  it.scoped("an unreadable session_time is 400 ingest_failed naming the value", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      for (const sessionTime of ["garbage", ""]) {
        const response = yield* post(baseUrl, { user_id: "u", infer: false, session_time: sessionTime, messages: [{ content: "x" }] })
        expect(response.status).toBe(400)
        expect(response.body).toMatchObject({ code: "ingest_failed", details: { value: sessionTime } })
      }
    }))

  it.scoped("a user_id outside the allowlist is 400 invalid_scope and never becomes a path", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const { baseUrl, dataRoot } = server
      for (const userId of ["../escape", ".hidden", "a/b", "x".repeat(127) + "/", "with space"]) {
        const response = yield* post(baseUrl, { user_id: userId, infer: false, messages: [{ content: "x" }] })
        expect(response.status, userId).toBe(400)
        expect(response.body).toMatchObject({ code: "invalid_scope" })
      }
      expect(yield* userRows(server).users).toEqual([])
      expect(NodeFs.existsSync(NodePath.join(dataRoot, "..", "escape"))).toBe(false)
    }))

  it.scoped("schema failures are 422: no messages, an unknown role, an unknown key", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const errors = (body: unknown) => (body as { details: { errors: Array<{ type: string; loc: Array<unknown> }> } }).details.errors
      const empty = yield* post(baseUrl, { user_id: "u", messages: [] })
      expect(errors(empty.body)[0]).toMatchObject({ type: "too_short", loc: ["body", "messages"] })
      const role = yield* post(baseUrl, { user_id: "u", messages: [{ role: "robot", content: "x" }] })
      expect(errors(role.body)).toEqual([{
        type: "literal_error",
        loc: ["body", "messages", 0, "role"],
        msg: "Input should be 'user', 'assistant' or 'system'",
        input: "robot",
        ctx: { expected: "'user', 'assistant' or 'system'" }
      }])
      const extra = yield* post(baseUrl, { user_id: "u", messages: [{ content: "x" }], mode: "fast" })
      expect(errors(extra.body)[0]).toMatchObject({ type: "extra_forbidden", loc: ["body", "mode"] })
    }))
})
