import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { rawFetch, startServer } from "./support/server.js"

const ALLOWED = "https://console.example.com"

const preflight = (origin: string) => ({
  method: "OPTIONS",
  headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" }
})

describe("CORS", () => {
  it.scoped("answers a preflight from an allowed origin with the auth headers allowed", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer({ SERVICE_CORS_ORIGINS: JSON.stringify([ALLOWED]) })
      const response = yield* rawFetch(`${baseUrl}/v1/admin/keys`, preflight(ALLOWED))
      expect(response.status).toBe(200)
      expect(response.headers.get("access-control-allow-origin")).toBe(ALLOWED)
      expect(response.headers.get("access-control-allow-credentials")).toBe("true")
      expect(response.headers.get("access-control-allow-headers")).toBe("authorization, content-type")
      expect(response.headers.get("access-control-allow-methods")).toContain("POST")
      expect(response.headers.get("access-control-max-age")).toBe("600")
    }))

  it.scoped("refuses a preflight from any other origin", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer({ SERVICE_CORS_ORIGINS: JSON.stringify([ALLOWED]) })
      const response = yield* rawFetch(`${baseUrl}/v1/admin/keys`, preflight("https://evil.example.com"))
      expect(response.status).toBe(400)
      expect(response.text).toBe("Disallowed CORS origin")
      expect(response.headers.get("access-control-allow-origin")).toBeNull()
    }))

  it.scoped("lets an allowed origin read responses, errors included, and no other origin", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer({ SERVICE_CORS_ORIGINS: JSON.stringify([ALLOWED]) })
      const allowed = yield* rawFetch(`${baseUrl}/v1/admin/config`, { headers: { origin: ALLOWED } })
      expect(allowed.status).toBe(401)
      expect(allowed.headers.get("access-control-allow-origin")).toBe(ALLOWED)
      expect(allowed.headers.get("vary")).toBe("Origin")
      const other = yield* rawFetch(`${baseUrl}/health`, { headers: { origin: "https://evil.example.com" } })
      expect(other.headers.get("access-control-allow-origin")).toBeNull()
    }))

  it.scoped("without configured origins there is no CORS: a preflight is 405", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const response = yield* rawFetch(`${baseUrl}/v1/admin/keys`, preflight(ALLOWED))
      expect(response.status).toBe(405)
      expect(response.body).toMatchObject({ code: "method_not_allowed" })
      expect(response.headers.get("access-control-allow-origin")).toBeNull()
    }))
})
