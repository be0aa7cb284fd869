import { describe, expect, it } from "@effect/vitest"
import { SqlError } from "@effect/sql"
import { Effect, FiberRef, Fiber, Redacted } from "effect"
import { PostgresDatabase, postgresDatabase } from "../../src/storage/postgres/database.js"
import { freshDatabase } from "../support/postgres.js"

/** Runs `use` against a fresh database on a pool of two connections. */
const withDatabase = <A, E>(use: Effect.Effect<A, E, PostgresDatabase>) =>
  Effect.flatMap(freshDatabase, (url) => Effect.provide(use, postgresDatabase({ url: Redacted.make(url), poolMax: 2 })))

/** As requests run while no trace is exported (http/untraced.ts). */
const untraced = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.locally(effect, FiberRef.currentTracerEnabled, false)

/** Starts a statement that sleeps, interrupts its caller while it runs, and says whether it ran to its end. */
const interruptedInsertLands = Effect.gen(function*() {
  const sql = yield* PostgresDatabase
  yield* sql`CREATE TABLE IF NOT EXISTS marks (tag text NOT NULL)`
  yield* sql`DELETE FROM marks`
  const caller = yield* Effect.fork(sql`INSERT INTO marks (tag) SELECT 'late' FROM pg_sleep(0.4)`)
  yield* Effect.sleep("100 millis")
  yield* Fiber.interrupt(caller)
  yield* Effect.sleep("900 millis")
  const marks = yield* sql<{ readonly count: number }>`SELECT count(*)::int AS count FROM marks`
  return marks[0]?.count === 1
})

describe("PostgreSQL statements run straight on their connection", () => {
  it.live("answer rows outside a transaction, and inside one on the transaction's connection", () =>
    withDatabase(untraced(Effect.gen(function*() {
      const sql = yield* PostgresDatabase
      expect(yield* sql<{ readonly one: number }>`SELECT ${1}::int AS one`).toEqual([{ one: 1 }])
      yield* sql`CREATE TABLE notes (body text NOT NULL)`
      const inside = yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO notes (body) VALUES (${"kept"})`
        const [first] = yield* sql<{ readonly id: string }>`SELECT txid_current()::text AS id`
        const [second] = yield* sql<{ readonly id: string; readonly seen: number }>`
          SELECT txid_current()::text AS id, (SELECT count(*)::int FROM notes) AS seen`
        return { same: first?.id === second?.id, seen: second?.seen }
      }))
      expect(inside).toEqual({ same: true, seen: 1 })
      // A transaction that fails leaves nothing of its statements.
      yield* sql.withTransaction(Effect.zipRight(sql`INSERT INTO notes (body) VALUES (${"dropped"})`, Effect.fail("stop"))).pipe(Effect.ignore)
      expect(yield* sql<{ readonly body: string }>`SELECT body FROM notes`).toEqual([{ body: "kept" }])
    }))), 30_000)

  it.live("fail as @effect/sql-pg fails them, and leave every connection free for the next", () =>
    withDatabase(untraced(Effect.gen(function*() {
      const sql = yield* PostgresDatabase
      const error = yield* Effect.flip(sql`SELECT * FROM no_such_table`)
      expect(error).toBeInstanceOf(SqlError.SqlError)
      expect(error.message).toBe("Failed to execute statement")
      expect(error.cause).toMatchObject({ code: "42P01" })
      // More statements than the pool holds connections, each after a failure: none is kept.
      const answers = yield* Effect.forEach([1, 2, 3, 4, 5], (n) =>
        Effect.zipRight(Effect.ignore(sql`SELECT * FROM no_such_table`), sql<{ readonly n: number }>`SELECT ${n}::int AS n`), { concurrency: 5 })
      expect(answers.flat()).toEqual([1, 2, 3, 4, 5].map((n) => ({ n })))
    }))), 30_000)

  it.live("let an interrupted caller go while its statement runs to its end, where a traced one is cancelled as before", () =>
    withDatabase(Effect.gen(function*() {
      expect(yield* untraced(interruptedInsertLands)).toBe(true)
      // While traces are exported a statement takes @effect/sql's path for its span, whose
      // interruption cancels the statement on the server.
      expect(yield* interruptedInsertLands).toBe(false)
    })), 30_000)
})
