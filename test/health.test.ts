import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as NodeFs from "node:fs"
import { SERVICE_VERSION, STORE_SCHEMA_VERSION } from "../src/version.js"
import { apiClient, rawFetch, startServer } from "./support/server.js"
import { userRows } from "./support/userRows.js"

describe("GET /health", () => {
  it.scoped("answers without a key, with version, schema version and auth state", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const response = yield* rawFetch(`${baseUrl}/health`)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ status: "ok", version: SERVICE_VERSION, schema_version: STORE_SCHEMA_VERSION, auth: "enabled" })
    }))

  it.scoped("reports auth disabled when it is", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer({ SERVICE_AUTH_DISABLED: "true", SERVICE_API_KEY: "" })
      const client = yield* apiClient(baseUrl, "")
      const health = yield* client.health.health()
      expect(health.auth).toBe("disabled")
    }))

  it.scoped("touches no store: the data root holds only the control plane", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      yield* rawFetch(`${server.baseUrl}/health`)
      expect(yield* userRows(server).users).toEqual([])
    }))

  it("reports the version of package.json", () => {
    const pkg = JSON.parse(NodeFs.readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
    expect(SERVICE_VERSION).toBe(pkg.version)
  })
})
