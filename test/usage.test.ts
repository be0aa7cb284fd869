import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { chatRequests, llmEnv, providerStub } from "./support/llm.js"
import { authHeaders, rawFetch, sendJson, startServer, tempDataRoot, usageReport as usage } from "./support/server.js"

const ingest = (baseUrl: string, sessionId: string, contents: ReadonlyArray<string>) =>
  sendJson(`${baseUrl}/v1/memories`, { user_id: "alice", session_id: sessionId, async_mode: false, messages: contents.map((content) => ({ content })) })

// The stub's rule: prompt tokens are the words of the system and user messages.
const words = (text: string) => text.match(/\S+/g)?.length ?? 0

describe("GET /v1/usage", () => {
  it.scoped("counts each ingest call once, with the tokens the provider reported", () =>
    Effect.gen(function*() {
      const stub = yield* providerStub("openai")
      const { baseUrl } = yield* startServer(llmEnv(stub))
      expect((yield* ingest(baseUrl, "s1", ["I moved to Berlin last year.", "I work at Acme Corp."])).status).toBe(200)
      // The second session has similar facts in memory: extraction, then reconciliation.
      expect((yield* ingest(baseUrl, "s2", ["I moved to Munich this year."])).status).toBe(200)
      const sent = chatRequests(stub).map((request) => (request.body as { messages: Array<{ content: string }> }).messages)
      const prompt = sent.reduce((sum, [system, user]) => sum + words(system!.content) + words(user!.content), 0)
      const report = yield* usage(baseUrl)
      expect(Object.keys(report.by_operation)).toEqual(["ingest"])
      const ingested = report.by_operation.ingest!
      expect(ingested).toMatchObject({ calls: sent.length, calls_with_usage: sent.length, prompt_tokens: prompt })
      expect(ingested.total_tokens).toBe(ingested.prompt_tokens + ingested.completion_tokens)
      expect(ingested.completion_tokens).toBeGreaterThan(0)
      expect(Object.keys(ingested.by_phase).sort()).toEqual(["extract", "reconcile"])
      expect(ingested.by_phase.extract!.calls + ingested.by_phase.reconcile!.calls).toBe(sent.length)
      expect(ingested.served_models).toHaveLength(1)
      // Embedding calls are not counted; with one operation the total is that operation.
      expect(report.total).toEqual(ingested)
    }))

  it.scoped("starts empty and is reset by a restart", () =>
    Effect.gen(function*() {
      const stub = yield* providerStub("openai")
      const dataRoot = tempDataRoot()
      const env = { ...llmEnv(stub), SERVICE_DATA_ROOT: dataRoot }
      yield* Effect.scoped(Effect.gen(function*() {
        const { baseUrl } = yield* startServer(env)
        expect(yield* usage(baseUrl)).toEqual({ by_operation: {}, total: {} })
        yield* ingest(baseUrl, "s1", ["I moved to Berlin last year."])
        expect((yield* usage(baseUrl)).total).toMatchObject({ calls: 1 })
      }))
      const { baseUrl } = yield* startServer(env)
      expect(yield* usage(baseUrl)).toEqual({ by_operation: {}, total: {} })
      // The memories themselves survived the restart.
      const listed = yield* rawFetch(`${baseUrl}/v1/memories?user_id=alice`, { headers: authHeaders() })
      expect(listed.body).toMatchObject({ total: 1 })
    }))
})
