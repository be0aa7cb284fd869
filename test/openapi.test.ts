import { OpenApi } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { MemoryApi } from "../src/api/Api.js"
import { rawFetch, startServer } from "./support/server.js"

interface Document {
  readonly paths: Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown }>>
}

describe("OpenAPI and /docs", () => {
  it.scoped("/openapi.json documents every route with its errors, without a key", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const response = yield* rawFetch(`${baseUrl}/openapi.json`)
      expect(response.status).toBe(200)
      const document = response.body as Document
      expect(Object.keys(document.paths).sort()).toEqual([
        "/health",
        "/metrics",
        "/v1/admin/config",
        "/v1/admin/keys",
        "/v1/admin/keys/{key_id}",
        "/v1/admin/requests",
        "/v1/admin/stats",
        "/v1/answer",
        "/v1/context",
        "/v1/entity_timeline",
        "/v1/events",
        "/v1/explore",
        "/v1/export",
        "/v1/import",
        "/v1/jobs/{job_id}",
        "/v1/maintenance/dream",
        "/v1/maintenance/embed",
        "/v1/memories",
        "/v1/memories/batch",
        "/v1/memories/{memory_id}",
        "/v1/metrics",
        "/v1/refine",
        "/v1/search",
        "/v1/usage"
      ])
      const getJob = document.paths["/v1/jobs/{job_id}"]!.get!
      expect(Object.keys(getJob.responses).sort()).toEqual(["200", "401", "404", "413", "422", "500", "501", "503"])
      expect(getJob.security).toEqual([{ bearer: [] }, { apiKey: [] }])
      expect(document.paths["/health"]!.get!.security).toEqual([])
      const add = document.paths["/v1/memories"]!.post!
      expect(Object.keys(add.responses).sort()).toEqual(["200", "202", "400", "401", "413", "422", "500", "501", "503"])
      expect(JSON.stringify(add.responses["400"])).toContain("InvalidScope")
      expect(JSON.stringify(add.responses["400"])).toContain("ProviderRateLimited")
      expect(Object.keys(document.paths["/v1/answer"]!.post!.responses)).toContain("503")
      expect(JSON.stringify(document.paths["/v1/maintenance/embed"]!.post!.responses["503"])).toContain("ServiceUnavailable")
      expect(JSON.stringify(document.paths["/v1/export"]!.get!.responses["200"])).toContain("application/x-ndjson")
      expect(Object.keys(document.paths["/v1/import"]!.post!.responses).sort()).toEqual(["201", "400", "401", "409", "413", "422", "500", "501", "503"])
      expect(JSON.stringify(document)).not.toContain("HttpApiDecodeError")
    }))

  it("gives every operation a summary, its one line in /docs", () => {
    const unsummarized = Object.entries(OpenApi.fromApi(MemoryApi).paths).flatMap(([path, operations]) =>
      Object.entries(operations).flatMap(([method, operation]) =>
        (operation?.summary ?? "").trim() === "" ? [`${method.toUpperCase()} ${path}`] : []))
    expect(unsummarized).toEqual([])
  })

  it("matches the committed snapshot (a contract change shows up in review)", async () => {
    await expect(JSON.stringify(OpenApi.fromApi(MemoryApi), null, 2)).toMatchFileSnapshot("./__snapshots__/openapi.json")
  })

  it.scoped("/docs serves the Swagger UI without a key", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const response = yield* rawFetch(`${baseUrl}/docs`)
      expect(response.status).toBe(200)
      expect(response.headers.get("content-type")).toContain("text/html")
      expect(response.text).toContain("swagger-ui")
    }))
})
