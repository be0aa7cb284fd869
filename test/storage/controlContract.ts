import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ControlStore } from "../../src/storage/ControlStore.js"
import type { StorageBackend } from "./contract.js"

const job = (id: string, createdAt: string) => ({ job_id: id, kind: "ingest", user_id: "alice", payload: `{"id":"${id}"}`, created_at: createdAt })

const key = (id: string, hash: string) => ({
  id,
  name: `key-${id}`,
  prefix: "sm_abcdef",
  created_at: `2026-01-01T00:00:0${id}Z`,
  last_used_at: null,
  revoked_at: null,
  key_hash: hash
})

export const controlContract = (backend: StorageBackend) =>
  describe(`${backend.name}: control plane`, () => {
    const run = <A, E>(effect: Effect.Effect<A, E, ControlStore>) => Effect.provide(effect, backend.fresh())

    it.effect("a job is claimed once it is pending or running, finished once, and found with its result", () =>
      run(Effect.gen(function*() {
        const { jobs } = yield* ControlStore
        yield* jobs.insert(job("j1", "2026-01-01T00:00:01Z"), 100)
        yield* jobs.insert(job("j2", "2026-01-01T00:00:02Z"), 100)
        expect(yield* jobs.unfinished).toEqual(["j1", "j2"])
        expect(yield* jobs.claim("j1", "2026-01-01T00:00:03Z")).toEqual({ job_id: "j1", kind: "ingest", payload: "{\"id\":\"j1\"}" })
        // A running job is claimed again after a restart: its process is gone.
        expect((yield* jobs.claim("j1", "2026-01-01T00:00:04Z"))?.job_id).toBe("j1")
        yield* jobs.succeed("j1", { ok: true }, "2026-01-01T00:00:05Z")
        expect(yield* jobs.claim("j1", "2026-01-01T00:00:06Z")).toBeUndefined()
        yield* jobs.fail("j2", "ingest_failed: no", "2026-01-01T00:00:07Z")
        expect(yield* jobs.find("j1")).toMatchObject({ status: "succeeded", result: "{\"ok\":true}", finished_at: "2026-01-01T00:00:05Z" })
        expect(yield* jobs.find("j2")).toMatchObject({ status: "failed", error: "ingest_failed: no" })
        expect(yield* jobs.find("j3")).toBeUndefined()
        expect(yield* jobs.unfinished).toEqual([])
        expect(yield* jobs.countByStatus).toEqual({ succeeded: 1, failed: 1 })
      })))

    it.effect("inserting a job prunes the oldest finished ones beyond the retention cap, never an unfinished one", () =>
      run(Effect.gen(function*() {
        const { jobs } = yield* ControlStore
        for (const id of ["a", "b", "c"]) {
          yield* jobs.insert(job(id, `2026-01-01T00:00:0${"abc".indexOf(id)}Z`), 2)
          yield* jobs.succeed(id, {}, "2026-01-01T00:01:00Z")
        }
        yield* jobs.insert(job("d", "2026-01-01T00:00:09Z"), 2)
        expect(yield* jobs.find("a")).toBeUndefined()
        expect(yield* jobs.find("b")).toBeUndefined()
        expect((yield* jobs.find("c"))?.status).toBe("succeeded")
        expect((yield* jobs.find("d"))?.status).toBe("pending")
      })))

    it.effect("named keys: found by hash while live, revoked once, counted", () =>
      run(Effect.gen(function*() {
        const { apiKeys } = yield* ControlStore
        yield* apiKeys.insert(key("1", "hash-1"))
        yield* apiKeys.insert(key("2", "hash-2"))
        expect((yield* apiKeys.findActiveByHash("hash-1"))?.name).toBe("key-1")
        expect(yield* apiKeys.countActive).toBe(2)
        yield* apiKeys.touch("1", "2026-01-02T00:00:00Z", "2026-01-01T23:59:00Z")
        yield* apiKeys.touch("1", "2026-01-02T00:00:30Z", "2026-01-01T23:59:30Z")
        expect((yield* apiKeys.list(false)).find((row) => row.id === "1")?.last_used_at).toBe("2026-01-02T00:00:00Z")
        const revoked = yield* apiKeys.revoke("1", "2026-01-03T00:00:00Z")
        expect(revoked?.revoked_at).toBe("2026-01-03T00:00:00Z")
        expect((yield* apiKeys.revoke("1", "2026-01-04T00:00:00Z"))?.revoked_at).toBe("2026-01-03T00:00:00Z")
        expect(yield* apiKeys.revoke("9", "2026-01-04T00:00:00Z")).toBeUndefined()
        expect(yield* apiKeys.findActiveByHash("hash-1")).toBeUndefined()
        expect(yield* apiKeys.countActive).toBe(1)
        expect((yield* apiKeys.list(false)).map((row) => row.id)).toEqual(["2"])
        expect((yield* apiKeys.list(true)).map((row) => row.id)).toEqual(["1", "2"])
        expect(Object.keys((yield* apiKeys.list(true))[0]!)).not.toContain("key_hash")
      })))

    it.effect("the request log keeps the newest rows up to its cap, newest first", () =>
      run(Effect.gen(function*() {
        const { requestLog } = yield* ControlStore
        for (let i = 0; i < 5; i++) {
          yield* requestLog.append({ request_id: `r${i}`, method: "GET", route: "/health", status_code: 200, latency_ms: i, key_name: null, created_at: `2026-01-01T00:00:0${i}Z` }, 3)
        }
        const page = yield* requestLog.page(0, 2)
        expect(page.total).toBe(3)
        expect(page.rows.map((row) => row.request_id)).toEqual(["r4", "r3"])
        expect((yield* requestLog.page(2, 10)).rows.map((row) => row.request_id)).toEqual(["r2"])
      })))

    it.effect("a fresh control plane has no refused starts and reports its size", () =>
      run(Effect.gen(function*() {
        const control = yield* ControlStore
        expect(yield* control.lockContention).toEqual({ count: 0, last: null })
        expect(yield* control.sizeBytes).toBeGreaterThan(0)
      })))
  })
