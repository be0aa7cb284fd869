import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Option, Scope } from "effect"
import * as NodePath from "node:path"
import { writeTinyModel } from "../src/llm/local/writeTinyModel.js"
import { authHeaders, type Deployment, freshDeployment, ingestTurn, rawFetch, sendJson, startServer, tempDataRoot } from "./support/server.js"

interface SearchBody {
  readonly hits: Array<{ readonly metadata: { readonly routes: Array<{ readonly route: string }> } }>
  readonly degraded: Array<{ readonly code: string; readonly message: string; readonly details: Record<string, unknown> }>
}

const TURNS = ["I walked the dog in the park", "We cooked pasta for dinner", "My sister bought a red car", "The movie last night was good"]

const tinyModel = () => {
  const directory = NodePath.join(tempDataRoot(), "tiny")
  writeTinyModel(directory)
  return directory
}

/** A model slow enough (about 20 ms a text of 256 tokens here) that a few hundred texts keep a thread busy for seconds. */
const slowModel = () => {
  const directory = NodePath.join(tempDataRoot(), "slow")
  writeTinyModel(directory, { hidden: 256, layers: 4, maxPositions: 256, seed: 3 })
  return directory
}

const local = (model: string, env: Record<string, string> = {}) => ({ SERVICE_EMBED_PROVIDER: "local", SERVICE_EMBED_MODEL: model, SERVICE_EMBED_THREADS: "1", ...env })

const ingest = (baseUrl: string, userId: string, contents: ReadonlyArray<string>) =>
  sendJson(`${baseUrl}/v1/memories`, { user_id: userId, session_id: "s1", infer: false, async_mode: false, messages: contents.map((content) => ({ content })) })

const search = (baseUrl: string, userId: string, query: string) => Effect.map(sendJson(`${baseUrl}/v1/search`, { user_id: userId, query }), (r) => r.body as SearchBody)

const get = (url: string) => rawFetch(url, { headers: authHeaders() })

const gauge = (text: string, name: string) => Number(new RegExp(`^${name} (\\d+)$`, "m").exec(text)?.[1] ?? Number.NaN)

/** Runs a server on the deployment until the returned effect closes it (one SQLite server may hold a data root at a time). */
const serveFor = (deployment: Deployment, env: Record<string, string>) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const server = yield* Scope.extend(startServer({ SERVICE_DATA_ROOT: deployment.dataRoot, ...env }), scope)
    return { ...server, close: Scope.close(scope, Exit.void) }
  })

const routesOf = (body: SearchBody) => new Set(body.hits.flatMap((hit) => hit.metadata.routes.map((route) => route.route)))

describe("SERVICE_EMBED_PROVIDER=local", () => {
  it.scoped("stores vectors from the model run in-process: the vector channels answer and nothing is degraded", () =>
    Effect.gen(function*() {
      const model = tinyModel()
      const { baseUrl } = yield* startServer(local(model))
      expect((yield* ingest(baseUrl, "alice", TURNS)).status).toBe(200)
      const body = yield* search(baseUrl, "alice", "dog park walk")
      expect(body.degraded).toEqual([])
      expect(routesOf(body).has("vector_turns")).toBe(true)
      expect((yield* get(`${baseUrl}/health`)).body).toMatchObject({ status: "ok", embeddings: "ready" })
      expect((yield* get(`${baseUrl}/v1/admin/config`)).body).toMatchObject({
        embed_provider: "local",
        embed_model: model,
        embed_state: "ready",
        embed_unavailable: null
      })
      const metrics = (yield* get(`${baseUrl}/metrics`)).text
      expect(gauge(metrics, "sodamem_embed_queued_texts")).toBe(0)
    }), { timeout: 180_000 })

  it.scoped("starts without its model: search says the vector channels are degraded and names the command, /health and config say so", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer({ SERVICE_EMBED_PROVIDER: "local" })
      expect((yield* ingestTurn(baseUrl, "bob", "I walked the dog in the park")).status).toBe(200)
      const body = yield* search(baseUrl, "bob", "dog")
      expect(body.degraded.map((entry) => entry.code)).toEqual(["vector_route_failed", "vector_route_failed"])
      for (const entry of body.degraded) {
        expect(entry.details).toMatchObject({ command: "memory-service models pull sentence-transformers/all-MiniLM-L6-v2" })
        expect(entry.message).toContain("the local embedding model sentence-transformers/all-MiniLM-L6-v2 is missing")
      }
      // Lexical recall still answers.
      expect(body.hits.length).toBeGreaterThan(0)
      expect((yield* get(`${baseUrl}/health`)).body).toMatchObject({ status: "ok", embeddings: "model_missing" })
      const config = (yield* get(`${baseUrl}/v1/admin/config`)).body as Record<string, unknown>
      expect(config).toMatchObject({ embed_provider: "local", embed_model: "sentence-transformers/all-MiniLM-L6-v2", embed_state: "model_missing" })
      expect(config.embed_unavailable).toContain("memory-service models pull sentence-transformers/all-MiniLM-L6-v2")
      // Other providers' /health is as it was.
      const other = yield* startServer()
      expect(Object.keys((yield* get(`${other.baseUrl}/health`)).body as object).sort()).toEqual(["auth", "schema_version", "status", "version"])
    }), { timeout: 180_000 })

  it.scoped("a directory without the model files is reported with what to put there", () =>
    Effect.gen(function*() {
      const directory = NodePath.join(tempDataRoot(), "empty-model")
      const { baseUrl } = yield* startServer(local(directory))
      const body = yield* search(baseUrl, "carol", "anything")
      expect(body.degraded[0]?.details).toMatchObject({ command: `put model.onnx, tokenizer.json, config.json in ${directory}` })
    }), { timeout: 180_000 })

  it.scoped("is the embedded default: no provider configured and a model pulled under the data root; a configured provider keeps its place", () =>
    Effect.gen(function*() {
      const deployment = yield* freshDeployment
      writeTinyModel(NodePath.join(deployment.dataRoot, "models", "sentence-transformers--all-MiniLM-L6-v2"))
      const server = yield* serveFor(deployment, { SERVICE_EMBED_THREADS: "1" })
      expect((yield* get(`${server.baseUrl}/v1/admin/config`)).body).toMatchObject({
        embed_provider: "local",
        embed_model: "sentence-transformers/all-MiniLM-L6-v2",
        embed_state: "ready"
      })
      expect((yield* ingest(server.baseUrl, "dan", TURNS)).status).toBe(200)
      expect((yield* search(server.baseUrl, "dan", "pasta dinner")).degraded).toEqual([])
      yield* server.close
      // Ollama needs no key: configured as the LLM provider, it embeds, as before.
      const withOllama = yield* serveFor(deployment, { SERVICE_LLM_PROVIDER: "ollama" })
      const config = (yield* get(`${withOllama.baseUrl}/v1/admin/config`)).body
      expect(config).toMatchObject({ embed_provider: "ollama", embed_state: null })
      expect((yield* get(`${withOllama.baseUrl}/health`)).body).not.toHaveProperty("embeddings")
      yield* withOllama.close
    }), { timeout: 180_000 })

  it.scoped("switching to the local model re-embeds what was written before through POST /v1/maintenance/embed", () =>
    Effect.gen(function*() {
      const deployment = yield* freshDeployment
      const before = yield* serveFor(deployment, {})
      expect((yield* ingest(before.baseUrl, "erin", TURNS)).status).toBe(200)
      yield* before.close
      const after = yield* serveFor(deployment, local(tinyModel()))
      expect((yield* search(after.baseUrl, "erin", "dog")).degraded.length).toBe(2)
      const embedded = yield* sendJson(`${after.baseUrl}/v1/maintenance/embed`, { user_id: "erin" })
      expect(embedded.status).toBe(200)
      expect(embedded.body).toMatchObject({ status: "ok", remaining: 0, dimensions: 32 })
      expect((embedded.body as { embedded: number }).embedded).toBeGreaterThanOrEqual(TURNS.length)
      const body = yield* search(after.baseUrl, "erin", "dog park")
      expect(body.degraded).toEqual([])
      expect(routesOf(body).has("vector_turns")).toBe(true)
      yield* after.close
    }), { timeout: 180_000 })

  it.scopedLive("/health answers while a large batch embeds", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer(local(slowModel(), { SERVICE_EMBED_TIMEOUT_MS: "600000" }))
      const long = "we walked the dog in the park and then went home for dinner with my sister ".repeat(12)
      const bulk = yield* Effect.fork(ingest(baseUrl, "frank", Array.from({ length: 400 }, (_, i) => `${i} ${long}`)))
      // Wait until the thread is at work on the batch.
      for (let i = 0; i < 600; i++) {
        if (gauge((yield* get(`${baseUrl}/metrics`)).text, "sodamem_embed_threads_busy") === 1) break
        yield* Effect.sleep("50 millis")
      }
      for (let i = 0; i < 20; i++) expect((yield* rawFetch(`${baseUrl}/health`)).status).toBe(200)
      // Every /health came back before the batch was done.
      expect(Option.isNone(yield* Fiber.poll(bulk))).toBe(true)
      expect(gauge((yield* get(`${baseUrl}/metrics`)).text, "sodamem_embed_threads_busy")).toBe(1)
      expect((yield* Fiber.join(bulk)).status).toBe(200)
    }), { timeout: 300_000 })

  it.scoped("bounds the queue and honours the deadline: a request past either is refused, and what it queued is dropped", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer(local(slowModel(), { SERVICE_EMBED_QUEUE_MAX: "100", SERVICE_EMBED_TIMEOUT_MS: "300", SERVICE_EMBED_BATCH: "8" }))
      const long = "we walked the dog in the park and then went home for dinner with my sister ".repeat(12)
      const tooMany = yield* ingest(baseUrl, "gina", Array.from({ length: 101 }, (_, i) => `${i} ${long}`))
      expect(tooMany.body).toMatchObject({ code: "provider_unavailable" })
      expect((tooMany.body as { message: string }).message).toContain("queue is full")
      const late = yield* ingest(baseUrl, "gina", Array.from({ length: 80 }, (_, i) => `${i} ${long}`))
      expect((late.body as { message: string }).message).toContain("did not answer within 300 ms")
      // The batches still queued were dropped with the request: nothing waits.
      expect(gauge((yield* get(`${baseUrl}/metrics`)).text, "sodamem_embed_queued_texts")).toBe(0)
      // The store holds nothing of the refused writes.
      expect((yield* search(baseUrl, "gina", "dog")).hits).toEqual([])
    }), { timeout: 300_000 })
})
