import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Option, Redacted } from "effect"
import Pg from "pg"
import { orUnavailable, PostgresDatabase, postgresDatabase } from "../../src/storage/postgres/database.js"
import { freshDatabase } from "../support/postgres.js"

const terminate = async (url: string, pid: number) => {
  const admin = new Pg.Client({ connectionString: url })
  await admin.connect()
  try {
    await admin.query("SELECT pg_terminate_backend($1)", [pid])
  } finally {
    await admin.end()
  }
}

describe("PostgreSQL connection lost mid-transaction", () => {
  it.effect("the transaction fails with StoreUnavailable (503), not a defect, though its ROLLBACK fails too", () =>
    Effect.gen(function*() {
      const url = yield* freshDatabase
      const outcome = yield* Effect.gen(function*() {
        const sql = yield* PostgresDatabase
        return yield* sql.withTransaction(Effect.gen(function*() {
          const [own] = yield* sql<{ readonly pid: number }>`SELECT pg_backend_pid() AS pid`
          yield* Effect.promise(() => terminate(url, own!.pid))
          yield* sql`SELECT 1`
        })).pipe(orUnavailable, Effect.exit)
      }).pipe(Effect.provide(postgresDatabase({ url: Redacted.make(url), poolMax: 2 })))
      expect(Exit.isFailure(outcome) && Cause.isDie(outcome.cause)).toBe(false)
      const failure = Exit.isFailure(outcome) ? Cause.failureOption(outcome.cause) : Option.none()
      expect(Option.map(failure, (error) => error._tag)).toEqual(Option.some("StoreUnavailable"))
    }), 30_000)
})
