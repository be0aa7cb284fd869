import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { PostgresDatabase, postgresDatabase } from "../../src/storage/postgres/database.js"
import { MAX_PREPARED_PER_CONNECTION } from "../../src/storage/postgres/preparedStatements.js"
import { freshDatabase } from "../support/postgres.js"

const database = (prepare: boolean | undefined) =>
  Layer.unwrapEffect(Effect.map(freshDatabase, (url) => postgresDatabase({ url: Redacted.make(url), poolMax: 2, ...(prepare === undefined ? {} : { prepare }) })))

/** The statements the connection running this one has prepared (a transaction keeps one connection). */
const preparedHere = Effect.flatMap(PostgresDatabase, (sql) =>
  sql<{ readonly statement: string }>`SELECT statement FROM pg_prepared_statements`.pipe(
    Effect.map((rows) => rows.map((row) => row.statement))
  ))

/** In one transaction: the statement run `times`, then what its connection has prepared. */
const runThenList = (text: string, times: number) =>
  Effect.flatMap(PostgresDatabase, (sql) =>
    sql.withTransaction(Effect.gen(function*() {
      for (let i = 0; i < times; i++) expect(yield* sql.unsafe<{ readonly n: number }>(text, [i])).toEqual([{ n: i }])
      return yield* preparedHere
    })))

describe("PostgreSQL statements with parameters run prepared", () => {
  it.effect("once per connection, then executed by name; answers unchanged", () =>
    Effect.gen(function*() {
      const text = "SELECT $1::int AS n"
      const prepared = yield* runThenList(text, 3)
      expect(prepared.filter((statement) => statement === text)).toHaveLength(1)
    }).pipe(Effect.provide(database(undefined))), 60_000)

  it.effect("not when turned off (SERVICE_DATABASE_PREPARE=false)", () =>
    Effect.gen(function*() {
      expect(yield* runThenList("SELECT $1::int AS n", 3)).toEqual([])
    }).pipe(Effect.provide(database(false))), 60_000)

  it.effect("at most MAX_PREPARED_PER_CONNECTION texts on one connection; the rest run unnamed and answer the same", () =>
    Effect.gen(function*() {
      const sql = yield* PostgresDatabase
      const prepared = yield* sql.withTransaction(Effect.gen(function*() {
        for (let i = 0; i <= MAX_PREPARED_PER_CONNECTION + 10; i++) {
          expect(yield* sql.unsafe<{ readonly n: number }>(`SELECT $1::int + ${i} AS n`, [1])).toEqual([{ n: i + 1 }])
        }
        return yield* preparedHere
      }))
      // The connection may have prepared a few statements before (migrations): the cap counts them too.
      expect(prepared).toHaveLength(MAX_PREPARED_PER_CONNECTION)
    }).pipe(Effect.provide(database(true))), 120_000)
})
