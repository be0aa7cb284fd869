import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { API_KEY, apiClient, authHeaders, rawFetch, startServer } from "./support/server.js"

const protectedRoute = "/v1/admin/config"

describe("authentication", () => {
  it.scoped("refuses a request without a key: 401 unauthorized with a Bearer challenge", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const response = yield* rawFetch(`${baseUrl}${protectedRoute}`)
      expect(response.status).toBe(401)
      expect(response.body).toEqual({
        code: "unauthorized",
        message: "missing API key (Authorization: Bearer <key> or X-API-Key)",
        details: {}
      })
      expect(response.headers.get("www-authenticate")).toBe("Bearer")
    }))

  it.scoped("refuses a wrong key without a challenge", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      for (const headers of [authHeaders("wrong"), { "x-api-key": "wrong" }]) {
        const response = yield* rawFetch(`${baseUrl}${protectedRoute}`, { headers })
        expect(response.status).toBe(401)
        expect(response.body).toMatchObject({ code: "unauthorized", message: "invalid API key" })
        expect(response.headers.get("www-authenticate")).toBeNull()
      }
    }))

  it.scoped("a wrong Bearer is not rescued by a right X-API-Key", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const response = yield* rawFetch(`${baseUrl}${protectedRoute}`, {
        headers: { authorization: "Bearer wrong", "x-api-key": API_KEY }
      })
      expect(response.status).toBe(401)
    }))

  it.scoped("accepts the key as Bearer (any case of the scheme) or as X-API-Key", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const accepted = [
        { authorization: `Bearer ${API_KEY}` },
        { authorization: `bearer   ${API_KEY}  ` },
        { "x-api-key": ` ${API_KEY} ` },
        { authorization: "Basic dXNlcjpwYXNz", "x-api-key": API_KEY },
        { authorization: "Bearer ", "x-api-key": API_KEY }
      ]
      for (const headers of accepted) {
        const response = yield* rawFetch(`${baseUrl}${protectedRoute}`, { headers })
        expect(response.status, JSON.stringify(headers)).toBe(200)
      }
    }))

  it.scoped("named keys authenticate until revoked, and then fail at once", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const admin = yield* apiClient(baseUrl)
      const created = yield* admin.admin.createKey({ payload: { name: "agent-7" } })
      const named = yield* apiClient(baseUrl, created.api_key)
      const config = yield* named.admin.config()
      expect(config.named_keys_active).toBe(1)
      const [listed] = (yield* admin.admin.listKeys({ urlParams: { include_revoked: true } })).keys
      expect(listed?.last_used_at).not.toBeNull()
      yield* admin.admin.revokeKey({ path: { key_id: created.key.id } })
      const afterRevoke = yield* rawFetch(`${baseUrl}${protectedRoute}`, { headers: authHeaders(created.api_key) })
      expect(afterRevoke.status).toBe(401)
      expect(afterRevoke.body).toMatchObject({ code: "unauthorized", message: "invalid API key" })
    }))

  it.scoped("with auth disabled every route is open", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer({ SERVICE_AUTH_DISABLED: "true", SERVICE_API_KEY: "" })
      const response = yield* rawFetch(`${baseUrl}${protectedRoute}`)
      expect(response.status).toBe(200)
      expect(response.body).toMatchObject({ auth: "disabled", api_key_set: false })
    }))
})

describe("headers on every response", () => {
  it.scoped("echo the incoming X-Request-ID, or make a 16-hex one; report the response time", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const echoed = yield* rawFetch(`${baseUrl}/health`, { headers: { "x-request-id": "trace-abc-1" } })
      expect(echoed.headers.get("x-request-id")).toBe("trace-abc-1")
      for (const path of ["/health", protectedRoute, "/no/such/route"]) {
        const response = yield* rawFetch(`${baseUrl}${path}`)
        expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f]{16}$/)
        expect(response.headers.get("x-response-time-ms")).toMatch(/^\d+\.\d$/)
      }
    }))
})
