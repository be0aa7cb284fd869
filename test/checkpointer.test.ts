import { Reactivity } from "@effect/experimental"
import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect, Exit, Logger, Scope } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { CHECKPOINT_EVERY, makeCheckpointer } from "../src/storage/sqlite/checkpointer.js"
import { makeSqliteClient } from "../src/storage/sqlite/client.js"
import { tempDataRoot } from "./support/server.js"

/** The rows the database file holds by itself, without its WAL: what checkpoints have moved there. */
const rowsInMainFile = (filename: string) => {
  const copy = `${filename}.copy`
  NodeFs.copyFileSync(filename, copy)
  const db = new Database(copy, { readonly: true })
  try {
    return (db.prepare("SELECT count(*) AS n FROM notes").get() as { n: number }).n
  } finally {
    db.close()
  }
}

/** The warnings `effect` logs, its forks' included, once they have had their turn. */
const capturedWarnings = <E>(effect: Effect.Effect<unknown, E>) =>
  Effect.gen(function*() {
    const warnings: Array<string> = []
    const capture = Logger.replace(Logger.defaultLogger, Logger.make(({ logLevel, message }) => {
      if (logLevel._tag === "Warning") warnings.push(String(message))
    }))
    yield* Effect.provide(effect, capture)
    yield* Effect.yieldNow()
    return warnings
  })

describe("background checkpoints", () => {
  it.scoped("every few transactions a worker thread moves the WAL into the database file", () =>
    Effect.gen(function*() {
      const checkpointer = yield* makeCheckpointer
      const filename = NodePath.join(tempDataRoot(), "store.db")
      const sql = yield* makeSqliteClient({ filename, onTransactionEnd: checkpointer.transactionEnded(filename) })
      yield* sql`PRAGMA wal_autocheckpoint = 0`
      yield* sql.withTransaction(sql`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`)
      const insert = sql.withTransaction(sql`INSERT INTO notes (body) VALUES ('a note')`)
      // The table is created in the first transaction; until the count is reached nothing is moved.
      for (let i = 2; i < CHECKPOINT_EVERY; i++) yield* insert
      yield* checkpointer.settled(filename)
      expect(() => rowsInMainFile(filename)).toThrow(/no such table: notes/)
      yield* insert
      yield* checkpointer.settled(filename)
      expect(rowsInMainFile(filename)).toBe(CHECKPOINT_EVERY - 1)
    }).pipe(Effect.provide(Reactivity.layer)))

  it.scoped("starts no worker thread until a checkpoint is due", () =>
    Effect.gen(function*() {
      const checkpointer = yield* makeCheckpointer
      const filename = NodePath.join(tempDataRoot(), "store.db")
      const sql = yield* makeSqliteClient({ filename, onTransactionEnd: checkpointer.transactionEnded(filename) })
      yield* sql.withTransaction(sql`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`)
      for (let i = 2; i < CHECKPOINT_EVERY; i++) yield* sql.withTransaction(sql`INSERT INTO notes (body) VALUES ('a note')`)
      expect(yield* checkpointer.running).toBe(false)
      yield* sql.withTransaction(sql`INSERT INTO notes (body) VALUES ('a note')`)
      expect(yield* checkpointer.running).toBe(true)
      yield* checkpointer.settled(filename)
      expect(rowsInMainFile(filename)).toBe(CHECKPOINT_EVERY - 1)
    }).pipe(Effect.provide(Reactivity.layer)))

  it.scoped("once the worker has stopped, transactions neither wait for it nor ask it, and the stop is logged once", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const checkpointer = yield* Scope.extend(makeCheckpointer, scope)
      yield* Scope.close(scope, Exit.void)
      const warnings = yield* capturedWarnings(Effect.gen(function*() {
        for (let i = 0; i < 3 * CHECKPOINT_EVERY; i++) yield* checkpointer.transactionEnded("/nowhere/store.db")
        yield* checkpointer.closing("/nowhere/store.db")
      }))
      expect(warnings).toEqual([expect.stringContaining("background checkpoints stopped (the checkpoint worker exited")])
    }))

  it.scoped("a checkpoint that fails is a warning in the log, and the next one is asked for again", () =>
    Effect.gen(function*() {
      const checkpointer = yield* makeCheckpointer
      const missing = NodePath.join(tempDataRoot(), "gone.db")
      const warnings = yield* capturedWarnings(Effect.gen(function*() {
        for (let round = 0; round < 2; round++) {
          for (let i = 0; i < CHECKPOINT_EVERY; i++) yield* checkpointer.transactionEnded(missing)
          yield* checkpointer.settled(missing)
        }
      }))
      expect(warnings).toHaveLength(2)
      expect(warnings[0]).toContain(`background checkpoint of ${missing} failed`)
      // Never created: the worker opens existing files only.
      expect(NodeFs.existsSync(missing)).toBe(false)
    }))
})
