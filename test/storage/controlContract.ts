import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ControlStore, REQUEST_LOG_ROWS_PER_INSERT } from "../../src/storage/ControlStore.js"
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

const lease = (owner: string, attempt = 1) => ({ owner, attempt })

/** A lease no test outlives. */
const LONG_LEASE = 600_000

export const controlContract = (backend: StorageBackend) =>
  describe(`${backend.name}: control plane`, () => {
    const run = <A, E>(effect: Effect.Effect<A, E, ControlStore>) => Effect.provide(effect, backend.fresh())

    it.effect("jobs are claimed oldest first, each by one worker, and finished only by the worker holding them", () =>
      run(Effect.gen(function*() {
        const { jobs } = yield* ControlStore
        yield* jobs.insert(job("j1", "2026-01-01T00:00:01Z"), 100)
        yield* jobs.insert(job("j2", "2026-01-01T00:00:02Z"), 100)
        expect(yield* jobs.claimNext("w1", LONG_LEASE, "2026-01-01T00:00:03Z")).toEqual({ job_id: "j1", kind: "ingest", payload: "{\"id\":\"j1\"}", attempts: 1 })
        expect((yield* jobs.claimNext("w1", LONG_LEASE, "2026-01-01T00:00:03Z"))?.job_id).toBe("j2")
        expect(yield* jobs.claimNext("w1", LONG_LEASE, "2026-01-01T00:00:03Z")).toBeUndefined()
        expect(yield* jobs.renew("j1", lease("w1"), LONG_LEASE)).toBe(true)
        expect(yield* jobs.renew("j1", lease("w2"), LONG_LEASE)).toBe(false)
        yield* jobs.succeed("j1", lease("w2"), { ok: false }, "2026-01-01T00:00:04Z")
        expect((yield* jobs.find("j1"))?.status).toBe("running")
        yield* jobs.succeed("j1", lease("w1"), { ok: true }, "2026-01-01T00:00:05Z")
        expect(yield* jobs.renew("j1", lease("w1"), LONG_LEASE)).toBe(false)
        yield* jobs.fail("j2", lease("w1"), "ingest_failed: no", "2026-01-01T00:00:07Z")
        expect(yield* jobs.claimNext("w2", LONG_LEASE, "2026-01-01T00:00:08Z")).toBeUndefined()
        expect(yield* jobs.find("j1")).toMatchObject({ status: "succeeded", result: "{\"ok\":true}", finished_at: "2026-01-01T00:00:05Z" })
        expect(yield* jobs.find("j2")).toMatchObject({ status: "failed", error: "ingest_failed: no" })
        expect(yield* jobs.find("j3")).toBeUndefined()
        expect(yield* jobs.countByStatus).toEqual({ succeeded: 1, failed: 1 })
      })))

    it.live("a job given up, or whose worker's lease lapsed, goes to the next worker, which alone finishes it", () =>
      run(Effect.gen(function*() {
        const { jobs } = yield* ControlStore
        yield* jobs.insert(job("j1", "2026-01-01T00:00:01Z"), 100)
        yield* jobs.insert(job("j2", "2026-01-01T00:00:02Z"), 100)
        expect((yield* jobs.claimNext("w1", LONG_LEASE, "2026-01-01T00:00:03Z"))?.job_id).toBe("j1")
        yield* jobs.release("w1")
        expect(yield* jobs.claimNext("w2", LONG_LEASE, "2026-01-01T00:00:04Z")).toMatchObject({ job_id: "j1", attempts: 2 })
        yield* jobs.succeed("j1", lease("w1"), { from: "w1" }, "2026-01-01T00:00:05Z")
        expect((yield* jobs.find("j1"))?.status).toBe("running")
        yield* jobs.succeed("j1", lease("w2", 2), { from: "w2" }, "2026-01-01T00:00:05Z")
        expect(yield* jobs.find("j1")).toMatchObject({ status: "succeeded", result: "{\"from\":\"w2\"}" })

        expect((yield* jobs.claimNext("w2", 1, "2026-01-01T00:00:06Z"))?.job_id).toBe("j2")
        yield* Effect.sleep("20 millis")
        expect(yield* jobs.claimNext("w3", LONG_LEASE, "2026-01-01T00:00:07Z")).toMatchObject({ job_id: "j2", attempts: 2 })
        expect(yield* jobs.renew("j2", lease("w2"), LONG_LEASE)).toBe(false)
        yield* jobs.succeed("j2", lease("w3", 2), { from: "w3" }, "2026-01-01T00:00:08Z")
        expect(yield* jobs.find("j2")).toMatchObject({ status: "succeeded", result: "{\"from\":\"w3\"}" })
      })))

    if (backend.shared) {
      it.effect("a job under a live lease is no other worker's", () =>
        run(Effect.gen(function*() {
          const { jobs } = yield* ControlStore
          yield* jobs.insert(job("j1", "2026-01-01T00:00:01Z"), 100)
          expect((yield* jobs.claimNext("w1", LONG_LEASE, "2026-01-01T00:00:02Z"))?.job_id).toBe("j1")
          expect(yield* jobs.claimNext("w2", LONG_LEASE, "2026-01-01T00:00:03Z")).toBeUndefined()
        })))

      it.effect("workers claiming at once each get a different job", () =>
        run(Effect.gen(function*() {
          const { jobs } = yield* ControlStore
          const ids = Array.from({ length: 12 }, (_, i) => `j${String(i).padStart(2, "0")}`)
          for (const id of ids) yield* jobs.insert(job(id, "2026-01-01T00:00:01Z"), 100)
          const claims = yield* Effect.all(
            Array.from({ length: 16 }, (_, i) => jobs.claimNext(`w${i}`, LONG_LEASE, "2026-01-01T00:00:02Z")),
            { concurrency: "unbounded" }
          )
          const claimed = claims.flatMap((claim) => claim === undefined ? [] : [claim.job_id])
          expect([...claimed].sort()).toEqual(ids)
        })))
    } else {
      it.effect("a running job whose worker is not this process's is taken at once: one process holds the backend", () =>
        run(Effect.gen(function*() {
          const { jobs } = yield* ControlStore
          yield* jobs.insert(job("j1", "2026-01-01T00:00:01Z"), 100)
          expect((yield* jobs.claimNext("w1", LONG_LEASE, "2026-01-01T00:00:02Z"))?.job_id).toBe("j1")
          expect(yield* jobs.claimNext("w2", LONG_LEASE, "2026-01-01T00:00:03Z")).toMatchObject({ job_id: "j1", attempts: 2 })
        })))
    }

    it.effect("a fence takes a user's running jobs of its kinds from their workers: the old lease finishes nothing, the job runs again", () =>
      run(Effect.gen(function*() {
        const { jobs } = yield* ControlStore
        yield* jobs.insert({ ...job("answer", "2026-01-01T00:00:01Z"), kind: "answer" }, 100)
        yield* jobs.insert({ ...job("other", "2026-01-01T00:00:02Z"), kind: "answer", user_id: "bob" }, 100)
        yield* jobs.insert(job("ingest", "2026-01-01T00:00:03Z"), 100)
        for (let i = 0; i < 3; i++) yield* jobs.claimNext("w1", LONG_LEASE, "2026-01-01T00:00:04Z")
        expect(yield* jobs.fence("alice", ["answer"])).toBe(1)
        expect(yield* jobs.renew("answer", lease("w1"), LONG_LEASE)).toBe(false)
        expect(yield* jobs.renew("other", lease("w1"), LONG_LEASE)).toBe(true)
        expect(yield* jobs.renew("ingest", lease("w1"), LONG_LEASE)).toBe(true)
        // Claimed again, even by the same process, the job is a new claim: the old one's result is refused.
        expect(yield* jobs.claimNext("w1", LONG_LEASE, "2026-01-01T00:00:05Z")).toMatchObject({ job_id: "answer", attempts: 2 })
        yield* jobs.succeed("answer", lease("w1"), { stale: true }, "2026-01-01T00:00:06Z")
        expect((yield* jobs.find("answer"))?.status).toBe("running")
        yield* jobs.succeed("answer", lease("w1", 2), { fresh: true }, "2026-01-01T00:00:07Z")
        expect(yield* jobs.find("answer")).toMatchObject({ status: "succeeded", result: "{\"fresh\":true}" })
        expect(yield* jobs.fence("alice", [])).toBe(0)
      })))

    it.effect("forgetting a user drops their finished jobs, not another user's nor one still running", () =>
      run(Effect.gen(function*() {
        const { jobs } = yield* ControlStore
        yield* jobs.insert(job("done", "2026-01-01T00:00:01Z"), 100)
        yield* jobs.insert({ ...job("bobs", "2026-01-01T00:00:02Z"), user_id: "bob" }, 100)
        yield* jobs.insert(job("running", "2026-01-01T00:00:03Z"), 100)
        for (let i = 0; i < 3; i++) yield* jobs.claimNext("w1", LONG_LEASE, "2026-01-01T00:00:04Z")
        yield* jobs.succeed("done", lease("w1"), { said: "words" }, "2026-01-01T00:00:05Z")
        yield* jobs.succeed("bobs", lease("w1"), { said: "words" }, "2026-01-01T00:00:05Z")
        expect(yield* jobs.forgetUser("alice")).toBe(1)
        expect(yield* jobs.find("done")).toBeUndefined()
        expect((yield* jobs.find("bobs"))?.status).toBe("succeeded")
        expect((yield* jobs.find("running"))?.status).toBe("running")
      })))

    it.effect("inserting a job prunes the oldest finished ones beyond the retention cap, never an unfinished one", () =>
      run(Effect.gen(function*() {
        const { jobs } = yield* ControlStore
        for (const id of ["a", "b", "c"]) {
          yield* jobs.insert(job(id, `2026-01-01T00:00:0${"abc".indexOf(id)}Z`), 2)
          yield* jobs.claimNext("w1", LONG_LEASE, "2026-01-01T00:01:00Z")
          yield* jobs.succeed(id, lease("w1"), {}, "2026-01-01T00:01:00Z")
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

    it.effect("the request log keeps the newest rows up to its cap, newest first, rows appended in batches", () =>
      run(Effect.gen(function*() {
        const { requestLog } = yield* ControlStore
        const row = (i: number) => {
          const keyId = i % 2 === 0 ? null : `key${i}`
          return { request_id: `r${i}`, method: "GET", route: "/health", status_code: 200, latency_ms: i, key_name: keyId, key_id: keyId, created_at: `2026-01-01T00:00:0${i}Z` }
        }
        yield* requestLog.append([row(0), row(1)], 3)
        yield* requestLog.append([row(2), row(3), row(4)], 3)
        const page = yield* requestLog.page(0, 2)
        expect(page.total).toBe(3)
        expect(page.rows.map((row) => row.request_id)).toEqual(["r4", "r3"])
        expect(page.rows.map((row) => row.key_id)).toEqual([null, "key3"])
        expect((yield* requestLog.page(2, 10)).rows.map((row) => row.request_id)).toEqual(["r2"])
      })))

    it.effect("a batch of the request log larger than one INSERT's worth is kept whole, in order, up to the cap", () =>
      run(Effect.gen(function*() {
        const { requestLog } = yield* ControlStore
        const count = REQUEST_LOG_ROWS_PER_INSERT * 2 + 7
        const rows = Array.from({ length: count }, (_, i) => ({
          request_id: `b${i}`, method: "POST", route: "/v1/search", status_code: 200, latency_ms: 1, key_name: null, key_id: null, created_at: "2026-01-01T00:00:00Z"
        }))
        yield* requestLog.append(rows, count - 3)
        const page = yield* requestLog.page(0, 1000)
        expect(page.total).toBe(count - 3)
        expect(page.rows[0]?.request_id).toBe(`b${count - 1}`)
        expect(page.rows.at(-1)?.request_id).toBe(`b${count - 1000}`)
      })))

    it.effect("a fresh control plane has no refused starts and reports its size", () =>
      run(Effect.gen(function*() {
        const control = yield* ControlStore
        expect(yield* control.lockContention).toEqual({ count: 0, last: null })
        expect(yield* control.sizeBytes).toBeGreaterThan(0)
      })))
  })
