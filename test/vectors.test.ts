import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { type ProviderStub, startProviderStub } from "../scripts/stubs/llm-providers.js"
import { authHeaders, rawFetch, startServer, tempDataRoot } from "./support/server.js"
import { seedFacts, userRows } from "./support/userRows.js"

const post = (url: string, body: unknown) =>
  rawFetch(url, { method: "POST", headers: { ...authHeaders(), "content-type": "application/json" }, body: JSON.stringify(body) })

interface SearchBody {
  readonly hits: Array<{ readonly id: string; readonly metadata: { readonly routes: Array<{ route: string }> } }>
  readonly degraded: Array<{ readonly code: string; readonly message: string; readonly details: { readonly channel: string } }>
}

const embeddingStub = (dimensions = 48) =>
  Effect.acquireRelease(Effect.promise(() => startProviderStub({ provider: "openai", dimensions })), (stub) => Effect.promise(() => stub.close()))

const withEmbedder = (stub: ProviderStub, env: Record<string, string> = {}) =>
  ({ SERVICE_LLM_API_KEY: "sk-stub", SERVICE_LLM_BASE_URL: stub.url, SERVICE_EMBED_MODEL: "stub-embed", ...env })

const ingest = (baseUrl: string, userId: string, contents: ReadonlyArray<string>) =>
  post(`${baseUrl}/v1/memories`, { user_id: userId, session_id: "s1", infer: false, async_mode: false, messages: contents.map((content) => ({ content })) })

const search = (baseUrl: string, userId: string, query: string) =>
  Effect.map(post(`${baseUrl}/v1/search`, { user_id: userId, query }), (r) => r.body as SearchBody)

const embeddingInputs = (stub: ProviderStub) =>
  stub.requests.flatMap((r) => r.path.endsWith("/embeddings") ? (r.body as { input: Array<string> }).input : [])

describe("embeddings and the vector leg", () => {
  it.scoped("turns are embedded at write time; the store records the model and dimension", () =>
    Effect.gen(function*() {
      const stub = yield* embeddingStub()
      const server = yield* startServer(withEmbedder(stub))
      expect((yield* ingest(server.baseUrl, "alice", ["I bought a new car last week.", "", "My doctor says I am fine."])).status).toBe(200)
      const rows = userRows(server)
      expect(yield* rows.vectorSpace("alice")).toEqual({ model: "stub-embed", dimensions: 48 })
      expect((yield* rows.vectors("alice", "turns")).map((turn) => turn.content)).toEqual(["I bought a new car last week.", "My doctor says I am fine."])
      expect(stub.requests[0]?.body).toMatchObject({ model: "stub-embed", input: ["I bought a new car last week.", "My doctor says I am fine."], encoding_format: "base64" })
    }))

  for (const dimensions of [48, 20]) {
    it.scoped(`finds by meaning what no word of the query matches (${dimensions} dimensions${dimensions % 8 === 0 ? ", bit index" : ", exact scan"})`, () =>
      Effect.gen(function*() {
        const stub = yield* embeddingStub(dimensions)
        const { baseUrl } = yield* startServer(withEmbedder(stub))
        yield* ingest(baseUrl, "alice", ["I bought a new car last week.", "We watched a movie on Sunday.", "The weather was cold."])
        const body = yield* search(baseUrl, "alice", "automobile")
        expect(body.degraded).toEqual([])
        expect(body.hits[0]?.id).toBe("ev_raw:s1_turn_1")
        expect(body.hits[0]?.metadata.routes.map((r) => r.route)).toEqual(["vector_turns"])
      }))
  }

  it.scoped("embeds a repeated query once", () =>
    Effect.gen(function*() {
      const stub = yield* embeddingStub()
      const { baseUrl } = yield* startServer(withEmbedder(stub))
      yield* ingest(baseUrl, "alice", ["I bought a new car last week."])
      for (let i = 0; i < 3; i++) yield* search(baseUrl, "alice", "which vehicle did I buy")
      expect(embeddingInputs(stub).filter((input) => input === "which vehicle did I buy")).toHaveLength(1)
    }))

  it.scoped("a provider failure fails the write (nothing stored) but only degrades a search", () =>
    Effect.gen(function*() {
      const stub = yield* embeddingStub()
      const server = yield* startServer(withEmbedder(stub))
      const { baseUrl } = server
      yield* ingest(baseUrl, "alice", ["I bought a new car last week."])
      stub.failNext(503, 100)
      const refused = yield* ingest(baseUrl, "alice", ["This turn cannot be embedded now."])
      expect(refused.status).toBe(400)
      expect(refused.body).toMatchObject({ code: "provider_unavailable" })
      expect(refused.text).not.toContain("sk-stub")
      expect(yield* userRows(server).count("alice", "turns")).toBe(1)
      const body = yield* search(baseUrl, "alice", "new car")
      expect(body.hits.map((h) => h.id)).toContain("ev_raw:s1_turn_1")
      expect(body.degraded.map((d) => d.details.channel)).toEqual(["fact_events", "raw_turns"])
      expect(body.degraded[0]?.message).toContain("the query could not be embedded")
    }))

  it.scopedLive("vectors of another dimension are never mixed in: the leg reports the mismatch", () =>
    Effect.gen(function*() {
      const stub = yield* embeddingStub()
      const dataRoot = tempDataRoot()
      const first = yield* Scope.make()
      const { baseUrl } = yield* Scope.extend(startServer(withEmbedder(stub, { SERVICE_DATA_ROOT: dataRoot })), first)
      yield* ingest(baseUrl, "alice", ["I bought a new car last week."])
      yield* Scope.close(first, Exit.void)
      const second = yield* startServer(withEmbedder(stub, { SERVICE_DATA_ROOT: dataRoot, SERVICE_EMBED_DIMENSIONS: "24" }))
      expect((yield* ingest(second.baseUrl, "alice", ["Another car story."])).status).toBe(200)
      expect(yield* userRows(second).vectors("alice", "turns")).toHaveLength(1)
      const body = yield* search(second.baseUrl, "alice", "car")
      expect(body.hits.length).toBeGreaterThan(0)
      expect(body.degraded[0]?.message).toContain("the store's vectors have 48 dimensions (stub-embed), the embedder gives 24")
    }))

  it.scoped("a store without vectors yet, and a service without an embedder, each say so", () =>
    Effect.gen(function*() {
      const stub = yield* embeddingStub()
      const plain = yield* startServer()
      yield* ingest(plain.baseUrl, "alice", ["I bought a new car last week."])
      expect((yield* search(plain.baseUrl, "alice", "car")).degraded[0]?.message).toContain("no embedding provider is configured")
      const embedded = yield* startServer(withEmbedder(stub))
      expect((yield* search(embedded.baseUrl, "nobody", "car")).degraded[0]?.message).toContain("the vector index is empty")
    }))

  it.scoped("a corrected memory's new version is embedded, and purging it removes its vector", () =>
    Effect.gen(function*() {
      const stub = yield* embeddingStub()
      const server = yield* startServer(withEmbedder(stub, { SERVICE_ALLOW_PURGE: "true" }))
      const { baseUrl } = server
      yield* ingest(baseUrl, "alice", ["I drive an old car."])
      yield* seedFacts(server, "alice", [{ fact_id: "fact_car", content: "Alice drives an old car." }])
      const patched = yield* rawFetch(`${baseUrl}/v1/memories/fact_car`, {
        method: "PATCH",
        headers: { ...authHeaders(), "content-type": "application/json" },
        body: JSON.stringify({ user_id: "alice", content: "Alice drives an electric automobile." })
      })
      const newId = (patched.body as { memory: { id: string } }).memory.id
      expect(yield* userRows(server).vectors("alice", "facts")).toHaveLength(1)
      expect((yield* search(baseUrl, "alice", "vehicle")).hits.map((h) => h.id)).toContain(newId)
      const purged = yield* rawFetch(`${baseUrl}/v1/memories/${newId}?user_id=alice&purge=true`, { method: "DELETE", headers: authHeaders() })
      // The new version and the one it superseded are erased; only the new one had a vector.
      expect((purged.body as { cascaded: Record<string, number> }).cascaded).toMatchObject({ vectors: 1, chroma_vectors: 1, versions: 2, fact_events: 2 })
      expect(yield* userRows(server).vectors("alice", "facts")).toHaveLength(0)
    }))
})
