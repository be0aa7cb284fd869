import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { apiClient, authHeaders, rawFetch, startServer } from "./support/server.js"

describe("named API keys", () => {
  it.scoped("minting returns 201 with the sm_ key once; listing never shows it", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const response = yield* rawFetch(`${baseUrl}/v1/admin/keys`, {
        method: "POST",
        headers: { ...authHeaders(), "content-type": "application/json" },
        body: JSON.stringify({ name: "ingest-bot", ignored: true })
      })
      expect(response.status).toBe(201)
      const created = response.body as { api_key: string; key: Record<string, unknown>; warning: string }
      expect(created.api_key).toMatch(/^sm_[A-Za-z0-9_-]{43}$/)
      expect(created.key).toMatchObject({ name: "ingest-bot", prefix: created.api_key.slice(0, 9), revoked: false, revoked_at: null })
      expect(created.key.id).toMatch(/^[0-9a-f]{32}$/)
      expect(created.warning).toContain("only time")
      const list = yield* rawFetch(`${baseUrl}/v1/admin/keys`, { headers: authHeaders() })
      expect(list.body).toMatchObject({ total: 1, keys: [{ id: created.key.id, name: "ingest-bot" }] })
      expect(list.text).not.toContain(created.api_key)
    }))

  it.scoped("revoking is idempotent, keeps the row and the first revoked_at", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const client = yield* apiClient(baseUrl)
      const first = yield* client.admin.createKey({ payload: { name: "a" } })
      yield* client.admin.createKey({ payload: { name: "b" } })
      const revoked = yield* client.admin.revokeKey({ path: { key_id: first.key.id } })
      expect(revoked.revoked).toBe(true)
      const again = yield* client.admin.revokeKey({ path: { key_id: first.key.id } })
      expect(again.revoked_at).toBe(revoked.revoked_at)
      const all = yield* client.admin.listKeys({ urlParams: { include_revoked: true } })
      expect(all.keys.map((key) => key.name)).toEqual(["a", "b"])
      const live = yield* client.admin.listKeys({ urlParams: { include_revoked: false } })
      expect(live.keys.map((key) => key.name)).toEqual(["b"])
      const config = yield* client.admin.config()
      expect(config.named_keys_active).toBe(1)
    }))

  it.scoped("a reserved actor's name, in any case or spacing, is refused (422 at body.name) and mints nothing", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      for (const name of ["bootstrap", "Anonymous", " MCP ", "BOOTSTRAP"]) {
        const response = yield* rawFetch(`${baseUrl}/v1/admin/keys`, {
          method: "POST",
          headers: { ...authHeaders(), "content-type": "application/json" },
          body: JSON.stringify({ name })
        })
        expect(response.status, name).toBe(422)
        expect(response.body, name).toMatchObject({
          code: "validation_error",
          details: { errors: [{ type: "value_error", loc: ["body", "name"], msg: "The name of a reserved actor (bootstrap, anonymous, mcp, in any case) cannot name a key", input: name }] }
        })
      }
      const client = yield* apiClient(baseUrl)
      expect((yield* client.admin.createKey({ payload: { name: "bootstrapper" } })).key.name).toBe("bootstrapper")
      expect((yield* client.admin.listKeys({ urlParams: { include_revoked: true } })).total).toBe(1)
    }))

  it.scoped("revoking an unknown key is 404 not_found", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const response = yield* rawFetch(`${baseUrl}/v1/admin/keys/abc`, { method: "DELETE", headers: authHeaders() })
      expect(response.status).toBe(404)
      expect(response.body).toEqual({ code: "not_found", message: "api key 'abc' not found", details: {} })
    }))

  it.scoped("the typed client decodes a declared error to its class", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const client = yield* apiClient(baseUrl)
      const error = yield* Effect.flip(client.admin.revokeKey({ path: { key_id: "missing" } }))
      expect(error._tag).toBe("NotFound")
    }))
})

describe("GET /v1/admin/config", () => {
  it.scoped("shows secrets only as set or not set", () =>
    Effect.gen(function*() {
      const { baseUrl, dataRoot } = yield* startServer({
        SERVICE_LLM_API_KEY: "llm-secret-xyz",
        SERVICE_LLM_MODEL: "gpt-test",
        SERVICE_CORS_ORIGINS: "[\"https://a.example\"]"
      })
      const response = yield* rawFetch(`${baseUrl}/v1/admin/config`, { headers: authHeaders() })
      const postgres = process.env.MEMORY_TEST_BACKEND === "postgres"
      expect(response.body).toMatchObject({
        data_root: dataRoot,
        storage_backend: postgres ? "postgres" : "sqlite",
        database_pool_max: postgres ? 10 : null,
        job_lease_seconds: 30,
        auth: "enabled",
        api_key_set: true,
        llm_api_key_set: true,
        llm_model: "gpt-test",
        llm_base_url: null,
        // Embeddings go through the LLM provider when none is set apart for them.
        embed_provider: "openai",
        embed_model: "text-embedding-3-small",
        cors_origins: ["https://a.example"],
        workers: 1,
        lock_contention_count: 0,
        lock_contention_last: null
      })
      expect(response.text).not.toContain("llm-secret-xyz")
      expect(response.text).not.toContain("test-bootstrap-key")
      expect(response.text).not.toContain("postgres://")
      const without = yield* startServer()
      expect((yield* rawFetch(`${without.baseUrl}/v1/admin/config`, { headers: authHeaders() })).body).toMatchObject({ embed_provider: null, embed_model: null })
    }))
})
