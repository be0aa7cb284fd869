import { Reactivity } from "@effect/experimental"
import type { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Deferred, Effect, Either, Fiber } from "effect"
import * as NodePath from "node:path"
import { makeSqliteClient } from "../src/storage/sqlite/client.js"
import { tempDataRoot } from "./support/server.js"

const clientOn = (filename: string) =>
  Effect.gen(function*() {
    const sql = yield* makeSqliteClient({ filename })
    yield* sql`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL UNIQUE)`
    return sql
  }).pipe(Effect.provide(Reactivity.layer))

const client = () => clientOn(NodePath.join(tempDataRoot(), "client.db"))

/** A transaction opened on another fiber, which runs `work` and then stays open until rolled back. */
const openTransaction = <E>(sql: SqlClient.SqlClient, work: Effect.Effect<unknown, E>) =>
  Effect.gen(function*() {
    const opened = yield* Deferred.make<void>()
    const release = yield* Deferred.make<void>()
    const transaction = yield* work.pipe(
      Effect.zipRight(Deferred.succeed(opened, undefined)),
      Effect.zipRight(Deferred.await(release)),
      Effect.zipRight(Effect.fail("abort" as const)),
      sql.withTransaction,
      Effect.either,
      Effect.fork
    )
    yield* Deferred.await(opened)
    return { rollBack: Effect.zipRight(Deferred.succeed(release, undefined), Fiber.join(transaction)) }
  })

describe("SQLite client", () => {
  it.scoped("opens its file in WAL mode and reads back what it wrote, as rows and as value arrays", () =>
    Effect.gen(function*() {
      const sql = yield* client()
      const [mode] = yield* sql<{ readonly journal_mode: string }>`PRAGMA journal_mode`
      expect(mode?.journal_mode).toBe("wal")
      yield* sql`INSERT INTO notes ${sql.insert([{ body: "one" }, { body: "two" }])}`
      expect(yield* sql`SELECT id, body FROM notes ORDER BY id`).toEqual([{ id: 1, body: "one" }, { id: 2, body: "two" }])
      expect(yield* sql`SELECT id, body FROM notes ORDER BY id`.values).toEqual([[1, "one"], [2, "two"]])
      // Its values asked for, the same text still answers with rows.
      expect(yield* sql`SELECT id, body FROM notes ORDER BY id`).toEqual([{ id: 1, body: "one" }, { id: 2, body: "two" }])
    }))

  it.scoped("a query run again after its table changed answers with the table's columns as they are now", () =>
    Effect.gen(function*() {
      const sql = yield* client()
      yield* sql`INSERT INTO notes (body) VALUES ('one')`
      expect(yield* sql`SELECT * FROM notes`).toEqual([{ id: 1, body: "one" }])
      yield* sql`ALTER TABLE notes ADD COLUMN tag TEXT NOT NULL DEFAULT 'new'`
      expect(yield* sql`SELECT * FROM notes`).toEqual([{ id: 1, body: "one", tag: "new" }])
      expect(yield* sql`SELECT * FROM notes`.values).toEqual([[1, "one", "new"]])
    }))

  it.scoped("answers each row as better-sqlite3 would: its columns in order, every type, a name given twice with its last value", () =>
    Effect.gen(function*() {
      const filename = NodePath.join(tempDataRoot(), "client.db")
      const sql = yield* clientOn(filename)
      yield* sql`INSERT INTO notes (id, body) VALUES (1, 'one'), (2, 'two')`
      // Names that would be code or a prototype if a row were built from them carelessly, and a number (ordered first).
      const text = `SELECT body, id, NULL AS missing, 1.5 AS fraction, x'00ff' AS bytes, 'first' AS twice, 'last' AS twice, -id AS negated,
        'odd' AS "a""b\\ }); throw 1; //", 'proto' AS "__proto__", 'seven' AS "7" FROM notes ORDER BY id`
      const rows = yield* sql.unsafe<Record<string, unknown>>(text)
      const reference = new Database(filename, { readonly: true })
      const expected = reference.prepare(text).all() as ReadonlyArray<Record<string, unknown>>
      reference.close()
      expect(rows).toEqual(expected)
      expect(rows.map((row) => Object.keys(row))).toEqual(expected.map((row) => Object.keys(row)))
      expect(rows[0]).toEqual({ body: "one", id: 1, missing: null, fraction: 1.5, bytes: Buffer.from([0, 255]), twice: "last", negated: -1, "a\"b\\ }); throw 1; //": "odd", 7: "seven" })
      expect(Object.getPrototypeOf(rows[0])).toBe(Object.prototype)
    }))

  it.scoped("a column renamed or added, by this connection or another, is answered under its name now", () =>
    Effect.gen(function*() {
      const filename = NodePath.join(tempDataRoot(), "client.db")
      const sql = yield* clientOn(filename)
      yield* sql`INSERT INTO notes (body) VALUES ('one')`
      expect(yield* sql`SELECT * FROM notes`).toEqual([{ id: 1, body: "one" }])
      yield* sql`ALTER TABLE notes RENAME COLUMN body TO text`
      expect(yield* sql`SELECT * FROM notes`).toEqual([{ id: 1, text: "one" }])
      const other = new Database(filename)
      other.exec("ALTER TABLE notes ADD COLUMN tag TEXT NOT NULL DEFAULT 'new'")
      other.close()
      expect(yield* sql`SELECT * FROM notes`).toEqual([{ id: 1, text: "one", tag: "new" }])
    }))

  it.scoped("answers bad SQL and broken constraints with an SqlError, and keeps working after", () =>
    Effect.gen(function*() {
      const sql = yield* client()
      const unprepared = yield* Effect.either(sql`SELECT nothing FROM nowhere`)
      expect(Either.isLeft(unprepared) && unprepared.left._tag).toBe("SqlError")
      expect(Either.isLeft(unprepared) && unprepared.left.message).toBe("Failed to prepare statement")
      yield* sql`INSERT INTO notes (body) VALUES ('same')`
      const duplicate = yield* Effect.either(sql`INSERT INTO notes (body) VALUES ('same')`)
      expect(Either.isLeft(duplicate) && duplicate.left.message).toBe("Failed to execute statement")
      expect(yield* sql`SELECT count(*) AS n FROM notes`).toEqual([{ n: 1 }])
    }))

  it.scoped("keeps answering past the number of prepared statements it keeps", () =>
    Effect.gen(function*() {
      const sql = yield* client()
      // 600 distinct texts, more than the 64 kept: the oldest are dropped and prepared again when asked.
      for (let round = 0; round < 2; round++) {
        for (let i = 0; i < 600; i++) {
          const [row] = yield* sql<{ readonly n: number }>`SELECT ${sql.literal(String(i))} AS n`
          expect(row?.n).toBe(i)
        }
      }
    }))

  it.scoped("a statement outside a transaction waits for another fiber's open transaction, so a rollback never takes it back", () =>
    Effect.gen(function*() {
      const sql = yield* client()
      const transaction = yield* openTransaction(sql, sql`INSERT INTO notes (body) VALUES ('rolled back')`)
      // Issued while the transaction is open: it neither sees the uncommitted row nor lands inside the transaction.
      const outside = yield* Effect.fork(sql`INSERT INTO notes (body) VALUES ('kept')`.pipe(Effect.zipRight(sql`SELECT body FROM notes`)))
      yield* Effect.yieldNow()
      expect(outside.unsafePoll()).toBeNull()
      expect(yield* transaction.rollBack).toEqual(Either.left("abort"))
      expect(yield* Fiber.join(outside)).toEqual([{ body: "kept" }])
      expect(yield* sql`SELECT body FROM notes`).toEqual([{ body: "kept" }])
    }))

  it.scoped("a transaction on one store does not let its fiber into another store's open transaction", () =>
    Effect.gen(function*() {
      const [first, second] = [yield* client(), yield* client()]
      const onSecond = yield* openTransaction(second, Effect.void)
      const fromFirst = yield* Effect.fork(second`INSERT INTO notes (body) VALUES ('kept')`.pipe(first.withTransaction))
      yield* Effect.yieldNow()
      yield* onSecond.rollBack
      yield* Fiber.join(fromFirst)
      expect(yield* second`SELECT body FROM notes`).toEqual([{ body: "kept" }])
    }))

  it.scoped("statements inside a transaction run on it and see its writes; after the commit every statement sees them", () =>
    Effect.gen(function*() {
      const sql = yield* client()
      yield* Effect.gen(function*() {
        yield* sql`INSERT INTO notes (body) VALUES ('inside')`
        expect(yield* sql`SELECT body FROM notes`).toEqual([{ body: "inside" }])
      }).pipe(sql.withTransaction)
      expect(yield* sql`SELECT body FROM notes`).toEqual([{ body: "inside" }])
    }))
})
