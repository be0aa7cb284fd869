import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { runLoad } from "../scripts/reliability/loadRun.js"
import { llmEnv, providerStub } from "./support/llm.js"
import { API_KEY, startServer } from "./support/server.js"

// The short variant of `npm run bench:load`: mixed traffic over more users than the store cache.
describe("mixed load across more users than the store cache", () => {
  it.scopedLive("ingest, search, context, supersede and archive: no errors, and every user's count is right", () =>
    Effect.gen(function*() {
      const stub = yield* providerStub()
      const { baseUrl } = yield* startServer({ ...llmEnv(stub), SERVICE_STORE_CACHE_MAX: "3" })
      const report = yield* Effect.promise(() => runLoad({ baseUrl, apiKey: API_KEY, clients: 40, users: 10, seconds: 6, seed: 7 }))
      expect(Object.fromEntries(report.errors)).toEqual({})
      expect(report.wrongCounts).toEqual([])
      for (const route of ["ingest", "search", "context", "supersede", "archive"] as const) {
        expect(report.latencies.get(route)?.length ?? 0, route).toBeGreaterThan(0)
      }
    }), 60_000)
})
