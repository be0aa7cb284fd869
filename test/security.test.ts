import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { apiClient, rawFetch, startServer } from "./support/server.js"

interface Document {
  readonly paths: Record<string, Record<string, { readonly security?: ReadonlyArray<unknown> }>>
}

/** Every operation the OpenAPI document declares, with its path parameters filled in. */
const operations = (document: Document) =>
  Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path: path.replace(/\{[^}]+\}/g, "some-id"),
      open: (operation.security ?? []).length === 0
    })))

const OPEN_ROUTES = ["GET /health"]

describe("authentication on every documented route", () => {
  it.scoped("every route but /health refuses a request without a key, or with a revoked one", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const document = (yield* rawFetch(`${baseUrl}/openapi.json`)).body as Document
      const all = operations(document)
      expect(all.filter((op) => op.open).map((op) => `${op.method} ${op.path}`)).toEqual(OPEN_ROUTES)
      const admin = yield* apiClient(baseUrl)
      const revoked = yield* admin.admin.createKey({ payload: { name: "soon-revoked" } })
      yield* admin.admin.revokeKey({ path: { key_id: revoked.key.id } })
      for (const op of all.filter((candidate) => !candidate.open)) {
        for (const headers of [{}, { authorization: `Bearer ${revoked.api_key}` }]) {
          const response = yield* rawFetch(`${baseUrl}${op.path}?user_id=u`, {
            method: op.method,
            headers: { ...headers, "content-type": "application/json" },
            ...(op.method === "GET" || op.method === "DELETE" ? {} : { body: "{}" })
          })
          expect(response.status, `${op.method} ${op.path} ${JSON.stringify(headers)}`).toBe(401)
          expect((response.body as { code: string }).code).toBe("unauthorized")
        }
      }
      expect(all.length).toBeGreaterThan(15)
    }))
})
