import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { llmEnv, providerStub } from "./support/llm.js"
import { authHeaders, rawFetch, sendJson, startServer, waitForJob } from "./support/server.js"
import { userRows } from "./support/userRows.js"

interface BatchResult {
  readonly succeeded: number
  readonly failed: number
  readonly results: ReadonlyArray<{ index: number; ok: boolean; session_id: string | null; facts_extracted: number; error: string | null }>
}

const batch = (baseUrl: string, body: Record<string, unknown>) =>
  sendJson(`${baseUrl}/v1/memories/batch`, { user_id: "alice", async_mode: false, ...body })

const session = (sessionId: string, content: string) => ({ session_id: sessionId, session_time: "2024-05-01", messages: [{ content }] })

describe("POST /v1/memories/batch", () => {
  it.scoped("sync: every session attempted on its own; a malformed or failing one is a failed item, the rest land", () =>
    Effect.gen(function*() {
      const stub = yield* providerStub("openai")
      const server = yield* startServer(llmEnv(stub))
      const { baseUrl } = server
      const response = yield* batch(baseUrl, {
        sessions: [
          session("a", "I play the cello."),
          { session_id: "b", messages: [] },
          { ...session("c", "I grow tomatoes."), session_time: "not a date" },
          { ...session("d", "I speak Finnish."), colour: "blue" },
          session("e", "I collect stamps.")
        ]
      })
      expect(response.status).toBe(200)
      const result = response.body as BatchResult
      expect(result).toMatchObject({ succeeded: 2, failed: 3 })
      expect(result.results.map((item) => [item.index, item.ok, item.session_id, item.facts_extracted])).toEqual([
        [0, true, "a", 1],
        [1, false, null, 0],
        [2, false, null, 0],
        [3, false, null, 0],
        [4, true, "e", 1]
      ])
      // In the 422's words: a field's description documents it and never stands in for the message.
      expect(result.results[1]!.error).toBe("validation_error: sessions[1].messages: List should have at least 1 item after validation, not 0")
      expect(result.results[2]!.error).toMatch(/^ingest_failed: session_time "not a date"/)
      expect(result.results[3]!.error).toBe("validation_error: sessions[3].colour: Extra inputs are not permitted")
      expect(result.results.filter((item) => item.ok).every((item) => item.error === null)).toBe(true)
      expect(yield* userRows(server).select("alice", "sessions", { columns: ["session_id"], orderBy: "session_id" })).toEqual([{ session_id: "a" }, { session_id: "e" }])
    }))

  it.scopedLive("async is the default: 202 with an empty session_id, then an ingest_batch job with the per-item report", () =>
    Effect.gen(function*() {
      const stub = yield* providerStub("openai")
      const { baseUrl } = yield* startServer(llmEnv(stub))
      const friends = ["Ana", "Ben", "Chloe", "Dev", "Ewa", "Finn", "Gus", "Hana", "Ivo", "Jun", "Kai", "Lea"]
      const sessions = friends.map((name, i) => session(`s${i}`, `${name} is my friend from school.`))
      const accepted = yield* sendJson(`${baseUrl}/v1/memories/batch`, { user_id: "alice", sessions })
      expect(accepted.status).toBe(202)
      expect(accepted.body).toMatchObject({ status: "pending", session_id: "" })
      const job = yield* waitForJob(baseUrl, (accepted.body as { job_id: string }).job_id)
      expect(job).toMatchObject({ status: "succeeded", kind: "ingest_batch", result: { succeeded: 12, failed: 0 } })
      const listed = yield* rawFetch(`${baseUrl}/v1/memories?user_id=alice`, { headers: authHeaders() })
      expect((listed.body as { total: number }).total).toBe(12)
    }))

  it.scoped("without an LLM every inferring session fails as an item (200), and infer=false imports verbatim", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const refused = yield* batch(baseUrl, { sessions: [session("a", "x y z"), session("b", "x y z")] })
      expect(refused.status).toBe(200)
      expect(refused.body).toMatchObject({ succeeded: 0, failed: 2 })
      expect((refused.body as BatchResult).results[0]!.error).toMatch(/^config_invalid: /)
      const verbatim = yield* batch(baseUrl, { infer: false, sessions: [session("a", "x y z"), session("b", "x y z")] })
      expect(verbatim.body).toMatchObject({ succeeded: 2, failed: 0 })
    }))

  it.scoped("1..500 sessions: none or 501 is a 422 validation error; a bad user_id refuses the whole batch", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const none = yield* batch(baseUrl, { sessions: [] })
      expect(none.status).toBe(422)
      expect(none.body).toMatchObject({ details: { errors: [{ type: "too_short", loc: ["body", "sessions"] }] } })
      const tooMany = yield* batch(baseUrl, { infer: false, sessions: Array.from({ length: 501 }, (_, i) => session(`s${i}`, "x")) })
      expect(tooMany.status).toBe(422)
      expect(tooMany.body).toMatchObject({ details: { errors: [{ type: "too_long", ctx: { max_length: 500, actual_length: 501 } }] } })
      const badUser = yield* sendJson(`${baseUrl}/v1/memories/batch`, { user_id: "../etc", infer: false, sessions: [session("a", "x")] })
      expect(badUser.status).toBe(400)
      expect(badUser.body).toMatchObject({ code: "invalid_scope" })
    }))
})
