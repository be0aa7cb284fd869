import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as NodeHttp from "node:http"
import type { AddressInfo } from "node:net"
import { ApiError, createApiClient, queryString } from "../console/src/lib/api.js"
import { API_KEY, startServer } from "./support/server.js"

interface SeenRequest {
  readonly method: string
  readonly url: string
  readonly headers: NodeHttp.IncomingHttpHeaders
}

const closeServer = (server: NodeHttp.Server) =>
  Effect.async<void>((resume) => {
    // Closing twice is harmless here: the callback runs either way.
    server.close(() => resume(Effect.void))
  })

/** A loopback server answering every request with one fixed reply, and keeping what it saw. */
const fixedReply = (status: number, body: string, contentType = "text/plain") =>
  Effect.acquireRelease(
    Effect.async<{ readonly baseUrl: string; readonly seen: Array<SeenRequest>; readonly server: NodeHttp.Server }>((resume) => {
      const seen: Array<SeenRequest> = []
      const server = NodeHttp.createServer((request, response) => {
        seen.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers })
        request.resume()
        response.writeHead(status, { "content-type": contentType }).end(body)
      })
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server })))
    }),
    ({ server }) => closeServer(server)
  )

const failure = (call: Promise<unknown>) =>
  Effect.promise(() => call.then(() => undefined, (error: unknown) => error))

describe("the console's API client", () => {
  it("builds query strings from the values that are set", () => {
    expect(queryString({ user_id: "a b", offset: 0, purge: false, agent_id: undefined, run_id: null, project_id: "" }))
      .toBe("?user_id=a+b&offset=0&purge=false")
    expect(queryString({ user_id: undefined })).toBe("")
  })

  it.scoped("sends the key as a Bearer token only when one is set, and a content type only with a body", () =>
    Effect.gen(function*() {
      const { baseUrl, seen } = yield* fixedReply(200, "{}", "application/json")
      let key: string | null = null
      const client = createApiClient({ baseUrl, apiKey: () => key })
      yield* Effect.promise(() => client.health())
      key = "k-1"
      yield* Effect.promise(() => client.createKey("robot"))
      yield* Effect.promise(() => client.deleteMemory("fact 1", "alice", false))
      expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual([
        "GET /health",
        "POST /v1/admin/keys",
        "DELETE /v1/memories/fact%201?user_id=alice"
      ])
      expect(seen[0]!.headers.accept).toBe("application/json")
      expect(seen[0]!.headers.authorization).toBeUndefined()
      expect(seen[0]!.headers["content-type"]).toBeUndefined()
      expect(seen[1]!.headers.authorization).toBe("Bearer k-1")
      expect(seen[1]!.headers["content-type"]).toBe("application/json")
      expect(seen[2]!.headers["content-type"]).toBeUndefined()
      expect(seen.every((request) => request.headers["x-api-key"] === undefined)).toBe(true)
    }))

  it.scoped("turns the service's error envelope into an ApiError with its code, message and status", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const withoutKey = createApiClient({ baseUrl, apiKey: () => null })
      const refused = yield* failure(withoutKey.config())
      expect(refused).toBeInstanceOf(ApiError)
      expect(refused).toMatchObject({ status: 401, code: "unauthorized" })
      const withKey = createApiClient({ baseUrl, apiKey: () => API_KEY })
      expect(yield* Effect.promise(() => withKey.config())).toMatchObject({ auth: "enabled", api_key_set: true })
      const missing = yield* failure(withKey.job("no-such-job"))
      expect(missing).toMatchObject({ status: 404, code: "not_found", message: "job 'no-such-job' not found" })
    }))

  it.scoped("names a reply that is not an envelope http_<status>, and a success that is not JSON invalid_response", () =>
    Effect.gen(function*() {
      const gateway = yield* fixedReply(502, "upstream down")
      const notEnvelope = yield* failure(createApiClient({ baseUrl: gateway.baseUrl, apiKey: () => null }).health())
      expect(notEnvelope).toMatchObject({ status: 502, code: "http_502", message: "Bad Gateway" })
      const html = yield* fixedReply(200, "<html></html>", "text/html")
      const notJson = yield* failure(createApiClient({ baseUrl: html.baseUrl, apiKey: () => null }).health())
      expect(notJson).toMatchObject({ status: 200, code: "invalid_response" })
    }))

  it.scoped("reports a service that cannot be reached as network_error, status 0", () =>
    Effect.gen(function*() {
      const { baseUrl, server } = yield* fixedReply(200, "{}")
      yield* closeServer(server)
      const unreachable = yield* failure(createApiClient({ baseUrl, apiKey: () => null }).health())
      expect(unreachable).toMatchObject({ status: 0, code: "network_error" })
    }))
})
