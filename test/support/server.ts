import { FetchHttpClient, HttpApiClient, HttpClient, HttpClientRequest, HttpServer } from "@effect/platform"
import { Clock, ConfigProvider, Context, Effect, Layer } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { MemoryApi } from "../../src/api/Api.js"
import { ServerLive } from "../../src/app.js"
import { ConsoleDirectory } from "../../src/http/console.js"
import type { UsageSummary } from "../../src/llm/usage.js"
import { freshDatabase } from "./postgres.js"

export const API_KEY = "test-bootstrap-key-5f1c"

export const tempDataRoot = () => NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "memory-test-"))

/** Where a service keeps its data: its data root and, on PostgreSQL, its database. */
export interface Deployment {
  readonly dataRoot: string
  /** The PostgreSQL database the server keeps users' data in; null on the embedded SQLite. */
  readonly databaseUrl: string | null
}

export interface RunningServer extends Deployment {
  readonly baseUrl: string
}

export interface ServerOptions {
  /** Where the server looks for the console's build, instead of the package's `console/dist`. */
  readonly consoleDirectory?: string
}

/** Whether the suites run on PostgreSQL (MEMORY_TEST_BACKEND=postgres) rather than the embedded SQLite. */
export const onPostgres = process.env.MEMORY_TEST_BACKEND === "postgres"

/**
 * The backend the suites run on: the embedded SQLite by default (no database); with
 * MEMORY_TEST_BACKEND=postgres, a fresh database in the tests' PostgreSQL cluster for each data
 * root. A server restarted on the same data root finds the same database.
 */
const databaseOf = (dataRoot: string): Effect.Effect<string | null> => {
  if (!onPostgres) return Effect.succeed(null)
  const known = databaseOfRoot.get(dataRoot)
  return known === undefined ? Effect.tap(freshDatabase, (made) => Effect.sync(() => databaseOfRoot.set(dataRoot, made))) : Effect.succeed(known)
}

const databaseOfRoot = new Map<string, string>()

/** A fresh deployment on the tests' backend, for service processes and the row fixtures. */
export const freshDeployment: Effect.Effect<Deployment> = Effect.suspend(() => {
  const dataRoot = tempDataRoot()
  return Effect.map(databaseOf(dataRoot), (databaseUrl) => ({ dataRoot, databaseUrl }))
})

/** The settings that put a service on a deployment. */
const storageSettings = (deployment: Deployment): Record<string, string> => ({
  SERVICE_DATA_ROOT: deployment.dataRoot,
  ...(deployment.databaseUrl === null ? {} : { SERVICE_DATABASE_URL: deployment.databaseUrl })
})

/** What a service process needs to run on a deployment with the tests' key, and any other settings. */
export const serviceEnv = (deployment: Deployment, env: Record<string, string> = {}): Record<string, string> => ({
  SERVICE_API_KEY: API_KEY,
  ...storageSettings(deployment),
  ...env
})

/** Starts the real server in-process on port 0 over a fresh data root (or database), for the enclosing scope. */
export const startServer = (env: Record<string, string> = {}, options: ServerOptions = {}) =>
  Effect.gen(function*() {
    const dataRoot = env.SERVICE_DATA_ROOT ?? tempDataRoot()
    const databaseUrl = env.SERVICE_DATABASE_URL ?? (yield* databaseOf(dataRoot))
    const settings = new Map(Object.entries({
      SERVICE_PORT: "0",
      SERVICE_HOST: "127.0.0.1",
      SERVICE_LOG_LEVEL: "error",
      ...serviceEnv({ dataRoot, databaseUrl }, env)
    }))
    // The server keeps real time even inside tests that run on the test clock.
    const server = options.consoleDirectory === undefined
      ? ServerLive
      : ServerLive.pipe(Layer.provide(Layer.succeed(ConsoleDirectory, options.consoleDirectory)))
    const context = yield* Layer.build(server.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(settings))))).pipe(
      Effect.withClock(Clock.make())
    )
    const address = Context.get(context, HttpServer.HttpServer).address
    if (address._tag !== "TcpAddress") return yield* Effect.dieMessage("expected a TCP address")
    return { baseUrl: `http://127.0.0.1:${address.port}`, dataRoot, databaseUrl } satisfies RunningServer
  })

/** The client derived from the API definition, authenticated with the given key. */
export const apiClient = (baseUrl: string, key: string = API_KEY) =>
  HttpApiClient.make(MemoryApi, {
    baseUrl,
    transformClient: HttpClient.mapRequest(HttpClientRequest.bearerToken(key))
  }).pipe(Effect.provide(FetchHttpClient.layer))

/** Raw HTTP, for what the typed client cannot send (malformed bodies, odd headers). */
export const rawFetch = (url: string, init: RequestInit = {}) =>
  Effect.promise(async () => {
    const response = await fetch(url, init)
    const text = await response.text()
    let body: unknown = undefined
    try {
      body = JSON.parse(text)
    } catch {
      body = text
    }
    return { status: response.status, headers: response.headers, body, text }
  })

export const authHeaders = (key: string = API_KEY) => ({ authorization: `Bearer ${key}` })

/** Stores one verbatim turn for a user, synchronously: the first write creates the user's store. */
export const ingestTurn = (baseUrl: string, userId: string, content: string, sessionId = "s1") =>
  rawFetch(`${baseUrl}/v1/memories`, {
    method: "POST",
    headers: { ...authHeaders(), "content-type": "application/json" },
    body: JSON.stringify({ user_id: userId, session_id: sessionId, infer: false, async_mode: false, messages: [{ content }] })
  })

/** A JSON request with the bootstrap key. */
export const sendJson = (url: string, body: unknown, method = "POST") =>
  rawFetch(url, { method, headers: { ...authHeaders(), "content-type": "application/json" }, body: JSON.stringify(body) })

/** Polls a job until it is succeeded or failed (bounded: about 10 s). */
export const waitForJob = (baseUrl: string, jobId: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 500; i++) {
      const job = yield* rawFetch(`${baseUrl}/v1/jobs/${jobId}`, { headers: authHeaders() })
      const status = (job.body as { status: string }).status
      if (status === "succeeded" || status === "failed") return job.body as Record<string, unknown>
      yield* Effect.sleep("20 millis")
    }
    return yield* Effect.dieMessage(`job ${jobId} did not finish`)
  })

/** The body of GET /v1/usage: summaries by operation and in total (`{}` before any LLM call). */
export interface UsageReport {
  readonly by_operation: Record<string, UsageSummary>
  readonly total: UsageSummary | Record<string, never>
}

export const usageReport = (baseUrl: string) =>
  Effect.map(rawFetch(`${baseUrl}/v1/usage`, { headers: authHeaders() }), (response) => response.body as UsageReport)
