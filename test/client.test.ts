import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeClient, makePromiseClient } from "../src/client/index.js"
import { API_KEY, startServer } from "./support/server.js"

describe("the typed client for TypeScript callers", () => {
  it.scoped("the promise client reaches every group, and rejects with the route's typed error", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const memory = yield* Effect.promise(() => makePromiseClient({ baseUrl, apiKey: API_KEY }))
      const health = yield* Effect.promise(() => memory.health.health())
      expect(health.status).toBe("ok")
      const added = yield* Effect.promise(() =>
        memory.memories.add({ payload: { user_id: "alice", infer: false, async_mode: false, messages: [{ role: "user", content: "I bought a new bike." }] } }))
      expect(added).toMatchObject({ turns_written: 1 })
      const found = yield* Effect.promise(() => memory.retrieval.search({ payload: { user_id: "alice", query: "bike", top_k: 5, include_superseded: false } }))
      expect(found.hits[0]?.content).toBe("I bought a new bike.")
      const missing = yield* Effect.promise(() => memory.jobs.getJob({ path: { job_id: "nope" } }).then(() => null, (error: unknown) => error))
      expect(missing).toMatchObject({ _tag: "NotFound", message: "job 'nope' not found" })
    }))

  it.scoped("without a key the service refuses it with a typed Unauthorized", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const client = yield* makeClient({ baseUrl })
      const error = yield* Effect.flip(client.admin.config())
      expect(error._tag).toBe("Unauthorized")
    }))
})
