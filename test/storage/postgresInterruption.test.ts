import { describe, expect, it } from "@effect/vitest"
import { SqlError } from "@effect/sql"
import { Cause, Effect, Exit, Fiber, Redacted } from "effect"
import { orUnavailable, PostgresDatabase, postgresDatabase } from "../../src/storage/postgres/database.js"
import { freshDatabase } from "../support/postgres.js"

describe("PostgreSQL statement interrupted while it runs", () => {
  // @effect/sql-pg answers an interruption with `SELECT pg_cancel_backend(pid)` on another of the
  // pool's connections; PostgreSQL cancels whatever that backend runs when the signal arrives. The
  // statement may have ended and its connection gone to the next caller waiting for one by then:
  // that caller's statement was cancelled (57014), a defect, a 500.
  it.live("runs to its end; the statement that takes its connection next is not cancelled", () =>
    Effect.gen(function*() {
      const url = yield* freshDatabase
      yield* Effect.gen(function*() {
        const sql = yield* PostgresDatabase
        yield* sql`CREATE TABLE marks (tag text NOT NULL)`
        const sleeping = (tag: string, seconds: number) =>
          orUnavailable(sql`INSERT INTO marks (tag) SELECT ${tag} FROM pg_sleep(${seconds})`)
        // Both connections of the pool busy, a third statement waiting for one of them.
        const interrupted = yield* Effect.fork(sleeping("interrupted", 0.6))
        const busy = yield* Effect.fork(sleeping("busy", 1.2))
        yield* Effect.sleep("100 millis")
        const next = yield* Effect.fork(sleeping("next", 2))
        yield* Effect.sleep("100 millis")
        yield* Fiber.interruptFork(interrupted)
        const [busyExit, nextExit] = yield* Effect.all([Fiber.await(busy), Fiber.await(next)])
        yield* Fiber.await(interrupted)
        const outcome = (exit: Exit.Exit<unknown, unknown>) => {
          if (Exit.isSuccess(exit)) return "done"
          const error = Cause.squash(exit.cause)
          return error instanceof SqlError.SqlError && error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : String(error)
        }
        expect(outcome(busyExit)).toBe("done")
        expect(outcome(nextExit)).toBe("done")
        const marks = yield* sql<{ readonly tag: string }>`SELECT tag FROM marks ORDER BY tag`
        expect(marks.map((row) => row.tag)).toEqual(["busy", "interrupted", "next"])
      }).pipe(Effect.provide(postgresDatabase({ url: Redacted.make(url), poolMax: 2 })))
    }), 30_000)
})
