import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect } from "effect"
import * as NodePath from "node:path"
import { LATEST_CONTROL_MIGRATION } from "../src/storage/sqlite/control/migrations.js"
import { jsonLines, runToExit, startProcess } from "./support/processes.js"
import { API_KEY, apiClient, authHeaders, rawFetch, startServer, tempDataRoot } from "./support/server.js"

const controlDb = (dataRoot: string) => NodePath.join(dataRoot, ".control", "service_control.db")

describe("control plane", () => {
  it.scoped("lives at <data_root>/.control/service_control.db in WAL mode with its tables", () =>
    Effect.gen(function*() {
      const { dataRoot } = yield* startServer()
      const db = new Database(controlDb(dataRoot), { readonly: true })
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>
      expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(["api_keys", "jobs", "lock_contention", "request_log"]))
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal")
      db.close()
    }))

  it.scoped("stores named keys only as SHA-256 digests", () =>
    Effect.gen(function*() {
      const { baseUrl, dataRoot } = yield* startServer()
      const client = yield* apiClient(baseUrl)
      const created = yield* client.admin.createKey({ payload: { name: "x" } })
      const db = new Database(controlDb(dataRoot), { readonly: true })
      const row = db.prepare("SELECT * FROM api_keys").get() as Record<string, unknown>
      db.close()
      expect(JSON.stringify(row)).not.toContain(created.api_key)
      expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/)
    }))

  it("refuses to start on a control database newer than the build", async () => {
    const dataRoot = tempDataRoot()
    const first = await startProcess({ SERVICE_API_KEY: API_KEY, SERVICE_DATA_ROOT: dataRoot })
    first.child.kill("SIGTERM")
    expect(await first.exited).toBe(0)
    const db = new Database(controlDb(dataRoot))
    db.prepare("INSERT INTO effect_sql_migrations (migration_id, name) VALUES (99, 'from_the_future')").run()
    db.close()
    const run = await runToExit({ SERVICE_API_KEY: API_KEY, SERVICE_DATA_ROOT: dataRoot })
    expect(run.code).not.toBe(0)
    expect(jsonLines(run.stderr).at(-1)).toMatchObject({ code: "control_schema_newer", details: { found: 99, supported: LATEST_CONTROL_MIGRATION } })
  })
})

describe("GET /v1/jobs/{job_id}", () => {
  it.scoped("reads a persisted job in the contract's shape", () =>
    Effect.gen(function*() {
      const { baseUrl, dataRoot } = yield* startServer()
      const db = new Database(controlDb(dataRoot))
      db.prepare(`INSERT INTO jobs (job_id, kind, status, user_id, payload, result, error, created_at, finished_at)
                  VALUES ('j1', 'ingest', 'succeeded', 'alice', '{}', '{"facts_extracted":0}', NULL,
                          '2026-11-22T10:00:00.000000+00:00', '2026-11-22T10:00:01.000000+00:00')`).run()
      db.close()
      const response = yield* rawFetch(`${baseUrl}/v1/jobs/j1`, { headers: authHeaders() })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({
        job_id: "j1",
        status: "succeeded",
        kind: "ingest",
        user_id: "alice",
        created_at: "2026-11-22T10:00:00.000000+00:00",
        finished_at: "2026-11-22T10:00:01.000000+00:00",
        result: { facts_extracted: 0 },
        error: null
      })
    }))

  it.scoped("an unknown job is 404 not_found", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const response = yield* rawFetch(`${baseUrl}/v1/jobs/nope`, { headers: authHeaders() })
      expect(response.status).toBe(404)
      expect(response.body).toEqual({ code: "not_found", message: "job 'nope' not found", details: {} })
    }))
})
