import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Scope } from "effect"
import { type ProviderStub, startProviderStub } from "../scripts/stubs/llm-providers.js"
import { startProcess } from "./support/processes.js"
import { type Deployment, freshDeployment, sendJson, serviceEnv, startServer, usageReport } from "./support/server.js"
import { userRows } from "./support/userRows.js"

interface SearchBody {
  readonly hits: Array<{ readonly id: string; readonly metadata: { readonly routes: Array<{ readonly route: string }> } }>
  readonly degraded: Array<{ readonly message: string }>
}

interface EmbedBody {
  readonly status: string
  readonly embedded: number
  readonly remaining: number
  readonly switched: number
  readonly cancelled: boolean
  readonly model: string
  readonly dimensions: number
}

const TURNS = [
  "I bought a new car last week.",
  "We watched a movie on Sunday.",
  "The weather was cold.",
  "My doctor says I am fine.",
  "I walked the dog in the park.",
  "Our house has a red door.",
  "I read a book about trains.",
  "We cooked pasta for dinner.",
  "The meeting moved to Friday.",
  "I planted tomatoes in the garden."
]

const embeddingStub = (options: { readonly embedDelayMs?: number } = {}) =>
  Effect.acquireRelease(
    Effect.promise(() => startProviderStub({ provider: "openai", dimensions: 48, ...options })),
    (stub) => Effect.promise(() => stub.close())
  )

const withEmbedder = (stub: ProviderStub, env: Record<string, string> = {}) => ({
  SERVICE_LLM_API_KEY: "sk-stub",
  SERVICE_LLM_BASE_URL: stub.url,
  SERVICE_EMBED_MODEL: "stub-embed",
  ...env
})

/** The second model a store switches to, of another dimension. */
const SECOND_MODEL = { SERVICE_EMBED_MODEL: "stub-embed-2", SERVICE_EMBED_DIMENSIONS: "24" }

const ingest = (baseUrl: string, userId: string, contents: ReadonlyArray<string>, sessionId = "s1") =>
  sendJson(`${baseUrl}/v1/memories`, { user_id: userId, session_id: sessionId, infer: false, async_mode: false, messages: contents.map((content) => ({ content })) })

const search = (baseUrl: string, userId: string, query: string) => Effect.map(sendJson(`${baseUrl}/v1/search`, { user_id: userId, query }), (r) => r.body as SearchBody)

const embed = (baseUrl: string, body: Record<string, unknown>) => sendJson(`${baseUrl}/v1/maintenance/embed`, body)

const embedded = (baseUrl: string, body: Record<string, unknown>) =>
  Effect.map(embed(baseUrl, body), (response) => {
    expect(response.status).toBe(200)
    return response.body as EmbedBody
  })

/** Runs a server on the deployment's storage until the returned effect closes it (one SQLite server may hold a data root at a time). */
const serveFor = (deployment: Deployment, env: Record<string, string>) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const server = yield* Scope.extend(startServer({ SERVICE_DATA_ROOT: deployment.dataRoot, ...env }), scope)
    return { ...server, close: Scope.close(scope, Exit.void) }
  })

/** A deployment whose users' turns were written with no embedder, or with the one `env` configures. */
const filled = (users: Record<string, ReadonlyArray<string>>, env: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const deployment = yield* freshDeployment
    const first = yield* serveFor(deployment, env)
    for (const [userId, contents] of Object.entries(users)) expect((yield* ingest(first.baseUrl, userId, contents)).status).toBe(200)
    yield* first.close
    return deployment
  })

const embeddingInputs = (stub: ProviderStub, model: string) =>
  stub.requests.flatMap((r) => {
    const body = r.body as { model?: string; input?: Array<string> }
    return r.path.endsWith("/embeddings") && body.model === model ? body.input ?? [] : []
  })

describe("POST /v1/maintenance/embed", () => {
  it.scoped("without an embedding provider it answers 503 service_unavailable, sync and async, and changes nothing", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      yield* ingest(baseUrl, "alice", ["I bought a new car last week."])
      for (const body of [{ user_id: "alice" }, { user_id: "alice", async_mode: true }, {}]) {
        const response = yield* embed(baseUrl, body)
        expect(response.status).toBe(503)
        expect(response.body).toMatchObject({ code: "service_unavailable" })
        expect((response.body as { message: string }).message).toContain("needs an embedding provider")
      }
    }))

  it.scopedLive("a store filled with no embedder is embedded: the vector leg, degraded before, finds by meaning after", () =>
    Effect.gen(function*() {
      const stub = yield* embeddingStub()
      const deployment = yield* filled({ alice: TURNS.slice(0, 3), bob: ["Bob drives a truck."] })
      const server = yield* serveFor(deployment, withEmbedder(stub))
      const before = yield* search(server.baseUrl, "alice", "automobile")
      expect(before.degraded[0]?.message).toContain("the vector index is empty")

      const first = yield* embedded(server.baseUrl, { user_id: "alice", batch_size: 2 })
      expect(first).toMatchObject({ status: "ok", embedded: 3, remaining: 0, switched: 0, cancelled: false, model: "stub-embed", dimensions: 48 })
      expect(yield* userRows(deployment).vectorSpace("alice")).toEqual({ model: "stub-embed", dimensions: 48 })
      expect((yield* userRows(deployment).vectors("alice", "turns")).map((row) => row.content)).toEqual(TURNS.slice(0, 3))
      const after = yield* search(server.baseUrl, "alice", "automobile")
      expect(after.degraded).toEqual([])
      expect(after.hits[0]?.id).toBe("ev_raw:s1_turn_1")
      expect(after.hits[0]?.metadata.routes.map((r) => r.route)).toEqual(["vector_turns"])

      // Without user_id, every user: bob's turn is left; then nothing is.
      expect(yield* embedded(server.baseUrl, {})).toMatchObject({ user_id: null, status: "ok", embedded: 1, remaining: 0 })
      expect(yield* embedded(server.baseUrl, {})).toMatchObject({ status: "ok", embedded: 0, remaining: 0 })
      expect(embeddingInputs(stub, "stub-embed").filter((input) => TURNS.includes(input))).toEqual(TURNS.slice(0, 3))
      const usage = yield* usageReport(server.baseUrl)
      expect(usage.by_operation.maintenance?.by_phase.embed?.calls).toBeGreaterThanOrEqual(3)
    }))

  it.scopedLive("a switch of model and dimension: the old vectors serve until every row has a new one, then the store switches at once", () =>
    Effect.gen(function*() {
      const stub = yield* embeddingStub()
      const deployment = yield* filled({ alice: TURNS.slice(0, 4) }, withEmbedder(stub))
      const rows = userRows(deployment)
      const server = yield* serveFor(deployment, withEmbedder(stub, SECOND_MODEL))
      expect((yield* search(server.baseUrl, "alice", "automobile")).degraded[0]?.message).toContain(
        "the store's vectors have 48 dimensions (stub-embed), the embedder gives 24"
      )

      // A deadline already past: one batch, and the old vectors still in place.
      const partial = yield* embedded(server.baseUrl, { user_id: "alice", batch_size: 2, max_processing_time_sec: 0.001 })
      expect(partial).toMatchObject({ status: "ok", embedded: 2, remaining: 2, switched: 0, cancelled: true })
      expect(yield* rows.vectorSpace("alice")).toEqual({ model: "stub-embed", dimensions: 48 })
      expect(yield* rows.vectors("alice", "turns")).toHaveLength(4)

      // A turn written during the switch gets no vector of the old model, and the new one's by the end.
      expect((yield* ingest(server.baseUrl, "alice", [TURNS[4]!], "s2")).status).toBe(200)
      expect(yield* rows.vectors("alice", "turns")).toHaveLength(4)
      let last = partial
      for (let round = 0; round < 5 && last.remaining > 0; round++) {
        last = yield* embedded(server.baseUrl, { user_id: "alice", batch_size: 2, max_processing_time_sec: 0.001 })
      }
      expect(last).toMatchObject({ remaining: 0, switched: 1, model: "stub-embed-2", dimensions: 24 })
      expect(yield* rows.vectorSpace("alice")).toEqual({ model: "stub-embed-2", dimensions: 24 })
      const vectors = yield* rows.vectors("alice", "turns")
      expect(vectors.map((row) => row.content)).toEqual(TURNS.slice(0, 5))
      expect(vectors.every((row) => row.vector.length === 24)).toBe(true)
      // Each row was embedded by the new model once by the runs (the turn written meanwhile also once by its write, whose vector was not kept).
      expect(embeddingInputs(stub, "stub-embed-2").filter((input) => TURNS.includes(input)).sort()).toEqual([...TURNS.slice(0, 5), TURNS[4]!].sort())

      const after = yield* search(server.baseUrl, "alice", "automobile")
      expect(after.degraded).toEqual([])
      expect(after.hits[0]?.id).toBe("ev_raw:s1_turn_1")
      expect(yield* embedded(server.baseUrl, { user_id: "alice" })).toMatchObject({ embedded: 0, remaining: 0, switched: 0 })
    }))

  it.scopedLive("a run going for a user makes another, and a dream, answer already_running", () =>
    Effect.gen(function*() {
      const stub = yield* embeddingStub({ embedDelayMs: 300 })
      const deployment = yield* filled({ alice: TURNS.slice(0, 4) })
      const server = yield* serveFor(deployment, withEmbedder(stub))
      const running = yield* Effect.fork(embedded(server.baseUrl, { user_id: "alice", batch_size: 1 }))
      while (!stub.requests.some((r) => (r.body as { input?: Array<string> }).input?.includes(TURNS[0]!) === true)) yield* Effect.sleep("20 millis")
      const overlapping = yield* embedded(server.baseUrl, { user_id: "alice" })
      expect(overlapping).toMatchObject({ status: "already_running", embedded: 0 })
      expect(overlapping.remaining).toBeGreaterThan(0)
      expect(yield* embedded(server.baseUrl, {})).toMatchObject({ status: "already_running", embedded: 0 })
      const dream = yield* sendJson(`${server.baseUrl}/v1/maintenance/dream`, { user_id: "alice" })
      expect(dream.body).toMatchObject({ status: "already_running" })
      expect(yield* Fiber.join(running)).toMatchObject({ status: "ok", embedded: 4, remaining: 0 })
    }))

  it.scopedLive("an async run is a job whose result is the run's", () =>
    Effect.gen(function*() {
      const stub = yield* embeddingStub()
      const deployment = yield* filled({ alice: TURNS.slice(0, 2) })
      const server = yield* serveFor(deployment, withEmbedder(stub))
      const accepted = yield* embed(server.baseUrl, { user_id: "alice", async_mode: true })
      expect(accepted.status).toBe(202)
      const jobId = (accepted.body as { job_id: string }).job_id
      let job: { status: string; kind?: string; result?: unknown } = { status: "pending" }
      for (let i = 0; i < 300 && job.status !== "succeeded" && job.status !== "failed"; i++) {
        yield* Effect.sleep("20 millis")
        job = (yield* sendJson(`${server.baseUrl}/v1/jobs/${jobId}`, undefined, "GET")).body as typeof job
      }
      expect(job).toMatchObject({ status: "succeeded", kind: "embed", result: { status: "ok", embedded: 2, remaining: 0 } })
    }))
})

describe("POST /v1/maintenance/embed across a crash (real process)", () => {
  it.scopedLive("a switch killed by SIGKILL keeps the vectors it staged, the old ones serving; the next run resumes from them", () =>
    Effect.gen(function*() {
      const stub = yield* embeddingStub({ embedDelayMs: 300 })
      const deployment = yield* filled({ alice: TURNS }, withEmbedder(stub))
      const rows = userRows(deployment)
      const env = serviceEnv(deployment, withEmbedder(stub, SECOND_MODEL))
      const service = yield* Effect.acquireRelease(Effect.promise(() => startProcess(env)), (running) =>
        Effect.promise(() => {
          running.child.kill("SIGKILL")
          return running.exited
        }))
      // Not awaited: the process dies under it.
      void fetch(`http://127.0.0.1:${service.port}/v1/maintenance/embed`, {
        method: "POST",
        headers: { authorization: `Bearer ${env.SERVICE_API_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ user_id: "alice", batch_size: 2 })
      }).catch(() => undefined)
      // The dimension probe, the first batch (stored before the second is asked for), the second in flight.
      while (embeddingInputs(stub, "stub-embed-2").length < 5) yield* Effect.sleep("10 millis")
      service.child.kill("SIGKILL")
      yield* Effect.promise(() => service.exited)

      expect(yield* rows.vectorSpace("alice")).toEqual({ model: "stub-embed", dimensions: 48 })
      expect(yield* rows.vectors("alice", "turns")).toHaveLength(TURNS.length)
      const server = yield* serveFor(deployment, withEmbedder(stub, SECOND_MODEL))
      const resumed = yield* embedded(server.baseUrl, { user_id: "alice", batch_size: 2 })
      expect(resumed).toMatchObject({ status: "ok", embedded: TURNS.length - 2, remaining: 0, switched: 1 })
      expect(yield* rows.vectorSpace("alice")).toEqual({ model: "stub-embed-2", dimensions: 24 })
      expect((yield* search(server.baseUrl, "alice", "automobile")).hits[0]?.id).toBe("ev_raw:s1_turn_1")
    }), 120_000)
})
