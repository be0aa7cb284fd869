import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Deferred, Duration, Effect, Fiber, Layer, Schedule, TestClock } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { AppConfig } from "../src/config/AppConfig.js"
import Database from "better-sqlite3"
import { OutboxFilling } from "../src/storage/sqlite/outboxFilling.js"
import { IDLE_GRACE, StoreCache } from "../src/storage/sqlite/StoreCache.js"
import { STORE_PAGE_CACHE_KIB } from "../src/storage/sqlite/storeFile.js"
import { API_KEY, apiClient, startServer, tempDataRoot } from "./support/server.js"
import { queryStore } from "./support/stores.js"

const cacheLayer = (dataRoot: string, max: number) =>
  StoreCache.Default.pipe(
    Layer.provide(AppConfig.layer),
    Layer.provide(Layer.succeed(OutboxFilling, false)),
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([
      ["SERVICE_API_KEY", API_KEY],
      ["SERVICE_DATA_ROOT", dataRoot],
      ["SERVICE_STORE_CACHE_MAX", String(max)]
    ]))))
  )

const touch = (cache: StoreCache, userId: string) => cache.write(userId, ({ sql }) => sql`SELECT 1`)

describe("StoreCache", () => {
  it.effect("a read of an unknown user creates nothing", () =>
    Effect.gen(function*() {
      const dataRoot = tempDataRoot()
      const cache = yield* StoreCache
      const result = yield* cache.read("nobody", () => Effect.succeed("opened"), () => "absent")
      expect(result).toBe("absent")
      expect(NodeFs.existsSync(NodePath.join(dataRoot, "nobody"))).toBe(false)
    }).pipe(Effect.provide(cacheLayer(tempDataRoot(), 2))))

  it.effect("an open store's page cache is capped at STORE_PAGE_CACHE_KIB, not the 16 MiB per connection SQLite is built with", () =>
    Effect.gen(function*() {
      const cache = yield* StoreCache
      const [setting] = yield* cache.write("capped", ({ sql }) => sql<{ readonly cache_size: number }>`PRAGMA cache_size`)
      expect(setting?.cache_size).toBe(-STORE_PAGE_CACHE_KIB)
      expect(STORE_PAGE_CACHE_KIB).toBeLessThanOrEqual(4096)
    }).pipe(Effect.provide(cacheLayer(tempDataRoot(), 2))))

  it.effect("keeps the most recently used stores open, up to the cap, once their idle grace is over", () => {
    const dataRoot = tempDataRoot()
    return Effect.gen(function*() {
      const cache = yield* StoreCache
      for (const user of ["a", "b", "c", "a"]) yield* touch(cache, user)
      // Used just now: all three stay open through their grace.
      expect(yield* cache.openCount).toBe(3)
      yield* TestClock.adjust(IDLE_GRACE)
      expect(yield* cache.openCount).toBe(2)
      // "b" was least recently used and is closed; reading it reopens it.
      const reopened = yield* cache.read("b", ({ userId }) => Effect.succeed(userId), () => "absent")
      expect(reopened).toBe("b")
      yield* TestClock.adjust(IDLE_GRACE)
      expect(yield* cache.openCount).toBe(2)
    }).pipe(Effect.provide(cacheLayer(dataRoot, 2)))
  })

  it.effect("a store used again within its grace is not closed and reopened", () =>
    Effect.gen(function*() {
      const cache = yield* StoreCache
      const connectionOf = (user: string) => cache.write(user, ({ sql }) => Effect.succeed(sql))
      const first = yield* connectionOf("a")
      yield* touch(cache, "b")
      yield* TestClock.adjust(Duration.millis(Duration.toMillis(IDLE_GRACE) / 2))
      // Over the cap of 1, but "a" is within its grace: the same connection serves it.
      expect(yield* connectionOf("a")).toBe(first)
      yield* TestClock.adjust(IDLE_GRACE)
      expect(yield* cache.openCount).toBe(1)
    }).pipe(Effect.provide(cacheLayer(tempDataRoot(), 1))))

  it.live("never closes a store in use: the cap is exceeded until stores are released", () =>
    Effect.gen(function*() {
      const cache = yield* StoreCache
      const release = yield* Deferred.make<void>()
      const users = ["a", "b", "c", "d"]
      const inUse = yield* Effect.forEach(users, () => Deferred.make<void>())
      const holders = yield* Effect.forEach(users, (user, i) =>
        Effect.fork(cache.write(user, ({ sql }) =>
          Effect.zipRight(Deferred.succeed(inUse[i]!, undefined), Effect.zipRight(Deferred.await(release), sql`SELECT 1`)))))
      yield* Effect.forEach(inUse, Deferred.await)
      expect(yield* cache.openCount).toBe(4)
      yield* Deferred.succeed(release, undefined)
      yield* Effect.forEach(holders, Fiber.join)
      // Released, the stores over the cap close once their grace is over (at the next sweep).
      yield* cache.openCount.pipe(
        Effect.repeat({ until: (open) => open <= 2, schedule: Schedule.spaced("50 millis") }),
        Effect.timeout(Duration.sum(IDLE_GRACE, Duration.seconds(10)))
      )
      expect(yield* cache.openCount).toBe(2)
    }).pipe(Effect.provide(cacheLayer(tempDataRoot(), 2))))
})

describe("StoreCache under load through the API", () => {
  it.scopedLive("cap 2, five users in rotation, concurrent writes: nothing lost, nothing fails", () =>
    Effect.gen(function*() {
      const { baseUrl, dataRoot } = yield* startServer({ SERVICE_STORE_CACHE_MAX: "2" })
      const client = yield* apiClient(baseUrl)
      const users = ["u0", "u1", "u2", "u3", "u4"]
      const requests = Array.from({ length: 100 }, (_, i) => ({ user: users[i % users.length]!, i }))
      yield* Effect.forEach(requests, ({ i, user }) =>
        client.memories.add({
          payload: {
            user_id: user,
            session_id: `s${i % 3}`,
            infer: false,
            async_mode: i % 2 === 0,
            messages: [{ role: "user", content: `message ${i}` }, { role: "assistant", content: `reply ${i}` }]
          }
        }), { concurrency: 16 })
      // Async ones finish on the job workers; wait until every turn is there.
      for (let attempt = 0; attempt < 100; attempt++) {
        const counts = users.map((user) => queryStore<{ n: number }>(dataRoot, user, "SELECT count(*) AS n FROM turns")[0]!.n)
        if (counts.every((n) => n === 40)) break
        yield* Effect.sleep("50 millis")
      }
      for (const user of users) {
        const contents = queryStore<{ content: string }>(dataRoot, user, "SELECT content FROM turns").map((row) => row.content)
        expect(contents).toHaveLength(40)
        expect(new Set(contents).size).toBe(40)
        const positions = queryStore<{ session_id: string; n: number; top: number }>(dataRoot, user,
          "SELECT session_id, count(*) AS n, max(position) AS top FROM turns GROUP BY session_id")
        for (const session of positions) expect(session.top).toBe(session.n)
      }
    }))
})

describe("a store written by a newer build", () => {
  it.scoped("is refused with 503 vector_store_unavailable naming the cause, not misread", () =>
    Effect.gen(function*() {
      const { baseUrl, dataRoot } = yield* startServer()
      const client = yield* apiClient(baseUrl)
      yield* client.memories.add({ payload: { user_id: "future", infer: false, async_mode: false, messages: [{ role: "user", content: "x" }] } })
      // A second server opens the copied store for the first time, as after an upgrade and a downgrade.
      const fresh = yield* startServer({ SERVICE_DATA_ROOT: tempDataRoot() })
      NodeFs.cpSync(NodePath.join(dataRoot, "future"), NodePath.join(fresh.dataRoot, "future"), { recursive: true })
      const db = new Database(NodePath.join(fresh.dataRoot, "future", "store.db"))
      db.prepare("INSERT INTO effect_sql_migrations (migration_id, name) VALUES (99, 'from_the_future')").run()
      db.close()
      const response = yield* Effect.promise(() =>
        fetch(`${fresh.baseUrl}/v1/memories?user_id=future`, { headers: { authorization: `Bearer ${API_KEY}` } }).then(async (r) => ({ status: r.status, body: await r.json() as Record<string, unknown> })))
      expect(response.status).toBe(503)
      expect(response.body).toMatchObject({ code: "vector_store_unavailable", details: { user_id: "future" } })
      expect(String(response.body.message)).toContain("StoreVersionError")
      expect(String(response.body.message)).not.toContain(dataRoot)
    }))
})
