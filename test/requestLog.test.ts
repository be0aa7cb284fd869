import { HttpApp, HttpClient, HttpServer, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Logger } from "effect"
import type { RequestLogRow } from "../src/domain/records.js"
import { corsPolicy } from "../src/http/cors.js"
import { requestContext, type ServedRequest } from "../src/http/requestContext.js"
import { startProcess } from "./support/processes.js"
import { apiClient, authHeaders, freshDeployment, ingestTurn, rawFetch, serviceEnv, startServer } from "./support/server.js"
import { controlRows } from "./support/userRows.js"

const page = (baseUrl: string, query = "") =>
  Effect.map(rawFetch(`${baseUrl}/v1/admin/requests${query}`, { headers: authHeaders() }), (r) => r.body as { requests: Array<RequestLogRow>; total: number; offset: number; limit: number })

describe("request log", () => {
  it.scoped("records route templates, status, latency, key name and request id; not successful /health", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      yield* rawFetch(`${baseUrl}/health`)
      const job = yield* rawFetch(`${baseUrl}/v1/jobs/abc123`, { headers: { ...authHeaders(), "x-request-id": "trace-7" } })
      yield* rawFetch(`${baseUrl}/v1/jobs/abc123`)
      yield* rawFetch(`${baseUrl}/v1/no/such`)
      const log = yield* page(baseUrl)
      expect(log.requests.map((e) => [e.method, e.route, e.status_code, e.key_name])).toEqual([
        ["GET", "/v1/no/such", 404, null],
        ["GET", "/v1/jobs/{job_id}", 401, null],
        ["GET", "/v1/jobs/{job_id}", 404, "bootstrap"]
      ])
      expect(log.requests[2]!.request_id).toBe("trace-7")
      expect(job.headers.get("x-request-id")).toBe("trace-7")
      expect(log.requests[2]!.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/)
      expect(log.requests[2]!.latency_ms).toBeGreaterThan(0)
      expect(JSON.stringify(log)).not.toContain("abc123")
      expect(log).toMatchObject({ total: 3, offset: 0, limit: 100 })
    }))

  it.scoped("names the named key that made a request, here and in the audit events", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const admin = yield* apiClient(baseUrl)
      const created = yield* admin.admin.createKey({ payload: { name: "importer" } })
      yield* rawFetch(`${baseUrl}/v1/memories`, {
        method: "POST",
        headers: { authorization: `Bearer ${created.api_key}`, "content-type": "application/json" },
        body: JSON.stringify({ user_id: "u", infer: false, async_mode: false, messages: [{ content: "x" }] })
      })
      const log = yield* page(baseUrl)
      expect(log.requests.find((e) => e.route === "/v1/memories")).toMatchObject({ key_name: "importer", key_id: created.key.id })
      expect(log.requests.find((e) => e.route === "/v1/admin/keys")).toMatchObject({ key_name: "bootstrap", key_id: null })
      const events = yield* rawFetch(`${baseUrl}/v1/events?user_id=u`, { headers: authHeaders() })
      expect(events.body).toMatchObject({ total: 1, events: [{ type: "memory_add", details: { actor: "key:importer" } }] })
    }))

  it.scoped("a key named after a reserved actor by an earlier build still reads as a named key", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const admin = yield* apiClient(server.baseUrl)
      const created = yield* admin.admin.createKey({ payload: { name: "impostor" } })
      yield* controlRows(server).update("api_keys", { name: "bootstrap" }, { id: created.key.id })
      const byImpostor = yield* rawFetch(`${server.baseUrl}/v1/memories`, {
        method: "POST",
        headers: { authorization: `Bearer ${created.api_key}`, "content-type": "application/json" },
        body: JSON.stringify({ user_id: "u", session_id: "s1", infer: false, async_mode: false, messages: [{ content: "x" }] })
      })
      expect(byImpostor.status).toBe(200)
      yield* ingestTurn(server.baseUrl, "u", "y", "s2")
      const events = (yield* rawFetch(`${server.baseUrl}/v1/events?user_id=u`, { headers: authHeaders() })).body as { events: Array<{ session_id: string; details: { actor: string } }> }
      expect(events.events.map((event) => [event.session_id, event.details.actor])).toEqual([["s2", "bootstrap"], ["s1", "key:bootstrap"]])
      const writes = (yield* page(server.baseUrl)).requests.filter((e) => e.route === "/v1/memories")
      expect(writes.map((e) => [e.key_name, e.key_id])).toEqual([["bootstrap", null], ["bootstrap", created.key.id]])
    }))

  it.scoped("keeps only the newest SERVICE_REQUEST_LOG_MAX rows", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer({ SERVICE_REQUEST_LOG_MAX: "3" })
      for (const id of ["a", "b", "c", "d", "e"]) yield* rawFetch(`${baseUrl}/v1/jobs/${id}`)
      const log = yield* page(baseUrl)
      // The listing request itself is logged after it answers, so it is not in its own page.
      expect(log.total).toBe(3)
      expect(log.requests).toHaveLength(3)
      expect((yield* page(baseUrl)).total).toBe(3)
    }))

  it.scoped("SERVICE_REQUEST_LOG_MAX=0 writes nothing at all", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer({ SERVICE_REQUEST_LOG_MAX: "0" })
      yield* rawFetch(`${baseUrl}/v1/jobs/a`)
      yield* rawFetch(`${baseUrl}/v1/nope`)
      yield* rawFetch(`${baseUrl}/v1/admin/config`, { headers: authHeaders() })
      expect(yield* page(baseUrl)).toEqual({ requests: [], total: 0, offset: 0, limit: 100 })
    }))

  it.scoped("pages newest first with offset and limit (1..1000)", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      for (const id of ["a", "b", "c"]) yield* rawFetch(`${baseUrl}/v1/jobs/${id}`, { headers: { "x-request-id": `r-${id}` } })
      const second = yield* page(baseUrl, "?offset=1&limit=1")
      expect(second.requests.map((e) => e.request_id)).toEqual(["r-b"])
      expect(second).toMatchObject({ offset: 1, limit: 1 })
      expect((yield* rawFetch(`${baseUrl}/v1/admin/requests?limit=1001`, { headers: authHeaders() })).status).toBe(422)
    }))

  it.scoped("lists a request as soon as its response is received: back-to-back requests read at once, newest first", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const ids = Array.from({ length: 20 }, (_, i) => `r-${i}`)
      for (const [i, id] of ids.entries()) {
        const path = i % 2 === 0 ? `/v1/jobs/${id}` : "/v1/admin/config"
        yield* rawFetch(`${baseUrl}${path}`, { headers: { ...authHeaders(), "x-request-id": id } })
      }
      const log = yield* page(baseUrl)
      expect(log.requests.map((e) => e.request_id)).toEqual([...ids].reverse())
      expect(log.total).toBe(20)
      // The listing is logged once it has answered: the next page starts with it.
      const next = yield* page(baseUrl, "?limit=1")
      expect(next.requests.map((e) => [e.route, e.status_code])).toEqual([["/v1/admin/requests", 200]])
      expect(next.total).toBe(21)
    }))

  it.scoped("logs the latency the response carries in X-Response-Time-Ms", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const response = yield* rawFetch(`${baseUrl}/v1/admin/config`, { headers: authHeaders() })
      const [row] = (yield* page(baseUrl)).requests
      expect(row?.latency_ms).toBeGreaterThan(0)
      expect(row?.latency_ms.toFixed(1)).toBe(response.headers.get("x-response-time-ms"))
    }))
})

/** The request ids the control plane holds, read straight from it (not through the service, which would write what waits first). */
const loggedIds = (deployment: Parameters<typeof controlRows>[0]) =>
  Effect.map(controlRows(deployment).select("request_log", { columns: ["request_id"], orderBy: "id" }), (rows) => rows.map((row) => String(row.request_id)))

describe("request log writes, off the responses' path", () => {
  it.scoped("writes the rows of an interval on its own, in the order served, though nothing reads the log", () =>
    Effect.gen(function*() {
      const server = yield* startServer({ SERVICE_REQUEST_LOG_FLUSH_MS: "50" })
      const ids = Array.from({ length: 6 }, (_, i) => `own-${i}`)
      for (const id of ids) yield* rawFetch(`${server.baseUrl}/v1/jobs/${id}`, { headers: { ...authHeaders(), "x-request-id": id } })
      // Bounded: the rows are due 50 ms after the first response; this only guards a hang.
      let logged: ReadonlyArray<string> = []
      for (let i = 0; i < 400 && logged.length < ids.length; i++) {
        logged = yield* loggedIds(server)
        if (logged.length < ids.length) yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 25)))
      }
      expect(logged).toEqual(ids)
    }))

  it("keeps every row across a graceful shutdown: rows still waiting are written on the way out (real process)", async () => {
    const deployment = await Effect.runPromise(freshDeployment)
    // An interval far longer than the test: every row is still waiting when SIGTERM comes.
    const service = await startProcess(serviceEnv(deployment, { SERVICE_REQUEST_LOG_FLUSH_MS: "60000" }))
    const ids = Array.from({ length: 12 }, (_, i) => `before-stop-${i}`)
    for (const id of ids) {
      const response = await fetch(`http://127.0.0.1:${service.port}/v1/jobs/${id}`, { headers: { ...authHeaders(), "x-request-id": id } })
      expect(response.status).toBe(404)
    }
    service.child.kill("SIGTERM")
    expect(await service.exited).toBe(0)
    expect(await Effect.runPromise(loggedIds(deployment))).toEqual(ids)
  }, 120_000)
})

describe("recording a served request", () => {
  const answer = HttpServerResponse.text("answered")

  /** Serves `app` over Node behind the request context, sends one GET, and gives the response and the lines logged. */
  const serve = (served: (request: ServedRequest) => Effect.Effect<void>, requestId: string, app: HttpApp.Default = answer) =>
    Effect.gen(function*() {
      const logged: Array<unknown> = []
      const response = yield* Effect.gen(function*() {
        yield* HttpServer.serveEffect(app, requestContext({ cors: corsPolicy([]), served }))
        const response = yield* HttpClient.get("/v1/jobs/j1", { headers: { "x-request-id": requestId } })
        return { status: response.status, headers: response.headers, body: yield* response.text }
      }).pipe(
        Effect.provide(NodeHttpServer.layerTest),
        Effect.provide(Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => logged.push(message)))),
        Effect.scoped,
        Effect.orDie
      )
      return { ...response, logged }
    })

  it.effect("is done before the response is handed over, with its status and latency", () =>
    Effect.gen(function*() {
      const recorded: Array<ServedRequest> = []
      const response = yield* serve((request) => Effect.sync(() => recorded.push(request)), "id-1")
      expect(recorded).toMatchObject([{ requestId: "id-1", method: "GET", path: "/v1/jobs/j1", route: "/v1/jobs/{job_id}", status: 200, keyName: null }])
      expect(recorded[0]?.latencyMs).toBeGreaterThan(0)
      expect(response.headers["x-response-time-ms"]).toBe(recorded[0]?.latencyMs.toFixed(1))
    }))

  it.effect("never fails the request when recording fails, and says so in the log", () =>
    Effect.gen(function*() {
      const response = yield* serve(() => Effect.dieMessage("the log is gone"), "id-2")
      expect(response).toMatchObject({ status: 200, body: "answered", headers: { "x-request-id": "id-2" } })
      expect(response.logged).toEqual([["request could not be recorded"]])
    }))

  it.effect("is done once when the response fails on its way out and the error's answer follows", () =>
    Effect.gen(function*() {
      const recorded: Array<ServedRequest> = []
      const failsOnTheWayOut = Effect.zipRight(HttpApp.appendPreResponseHandler(() => Effect.dieMessage("the response cannot go out")), answer)
      const response = yield* serve((request) => Effect.sync(() => recorded.push(request)), "id-3", failsOnTheWayOut)
      expect(response.status).toBe(500)
      expect(recorded).toHaveLength(1)
    }))
})
