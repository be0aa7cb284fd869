import { Reactivity } from "@effect/experimental"
import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Duration, Effect, Exit, Logger, Scope, TestClock } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { CHECKPOINT_DELAY, CHECKPOINT_EVERY, makeCheckpointer } from "../src/storage/sqlite/checkpointer.js"
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

/** A checkpointer, and a store whose transactions end in it, its `notes` table made. */
const storeWithNotes = Effect.gen(function*() {
  const checkpointer = yield* makeCheckpointer
  const filename = NodePath.join(tempDataRoot(), "store.db")
  const sql = yield* makeSqliteClient({ filename, onTransactionEnd: checkpointer.transactionEnded(filename) })
  yield* sql`PRAGMA wal_autocheckpoint = 0`
  yield* sql.withTransaction(sql`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`)
  return { checkpointer, filename, insert: sql.withTransaction(sql`INSERT INTO notes (body) VALUES ('a note')`) }
}).pipe(Effect.provide(Reactivity.layer))

/** Just short of the delay: what a round waits for, less a millisecond. */
const JUST_SHORT = Duration.subtract(CHECKPOINT_DELAY, Duration.millis(1))

describe("background checkpoints", () => {
  it.scoped("a round's transactions are in the database file once the delay from its first has passed, not before: a later one does not put it off", () =>
    Effect.gen(function*() {
      const { checkpointer, filename, insert } = yield* storeWithNotes
      // The table was made in the round's first transaction.
      yield* TestClock.adjust(JUST_SHORT)
      yield* insert
      yield* Effect.yieldNow()
      expect(yield* checkpointer.running).toBe(false)
      expect(() => rowsInMainFile(filename)).toThrow(/no such table: notes/)
      yield* TestClock.adjust(Duration.millis(1))
      yield* checkpointer.settled(filename)
      expect(rowsInMainFile(filename)).toBe(1)
    }))

  it.scoped("a store written fast is checkpointed at its CHECKPOINT_EVERY-th transaction without waiting for the delay", () =>
    Effect.gen(function*() {
      const { checkpointer, filename, insert } = yield* storeWithNotes
      // The table is made in the round's first transaction.
      for (let i = 2; i < CHECKPOINT_EVERY; i++) yield* insert
      yield* Effect.yieldNow()
      expect(yield* checkpointer.running).toBe(false)
      yield* insert
      yield* checkpointer.settled(filename)
      expect(rowsInMainFile(filename)).toBe(CHECKPOINT_EVERY - 1)
    }))

  it.scoped("a transaction that ends while its store's checkpoint runs is in the next one", () =>
    Effect.gen(function*() {
      const { checkpointer, filename, insert } = yield* storeWithNotes
      yield* TestClock.adjust(CHECKPOINT_DELAY)
      // Once the worker is started, the first round's checkpoint has been asked for (its thread
      // is still starting): this insert starts the next round.
      for (let i = 0; i < 100 && !(yield* checkpointer.running); i++) yield* Effect.yieldNow()
      expect(yield* checkpointer.running).toBe(true)
      yield* insert
      yield* TestClock.adjust(CHECKPOINT_DELAY)
      yield* checkpointer.settled(filename)
      expect(rowsInMainFile(filename)).toBe(1)
    }))

  it.scoped("a store closing drops its due checkpoint: no worker is started for it", () =>
    Effect.gen(function*() {
      const { checkpointer, filename } = yield* storeWithNotes
      yield* checkpointer.closing(filename)
      yield* TestClock.adjust(Duration.times(CHECKPOINT_DELAY, 2))
      yield* Effect.yieldNow()
      expect(yield* checkpointer.running).toBe(false)
    }))

  it.scoped("once the worker has stopped, transactions neither wait for it nor ask it, and the stop is logged once", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const checkpointer = yield* Scope.extend(makeCheckpointer, scope)
      yield* Scope.close(scope, Exit.void)
      const warnings = yield* capturedWarnings(Effect.gen(function*() {
        for (let i = 0; i < 3 * CHECKPOINT_EVERY; i++) yield* checkpointer.transactionEnded("/nowhere/store.db")
        yield* TestClock.adjust(CHECKPOINT_DELAY)
        yield* checkpointer.closing("/nowhere/store.db")
      }))
      expect(warnings).toEqual([expect.stringContaining("background checkpoints stopped (the checkpoint worker exited")])
    }))

  it.scoped("a checkpoint that fails is a warning in the log, and the next round asks for one again", () =>
    Effect.gen(function*() {
      const checkpointer = yield* makeCheckpointer
      const missing = NodePath.join(tempDataRoot(), "gone.db")
      const warnings = yield* capturedWarnings(Effect.gen(function*() {
        for (let round = 0; round < 2; round++) {
          yield* checkpointer.transactionEnded(missing)
          yield* TestClock.adjust(CHECKPOINT_DELAY)
          yield* checkpointer.settled(missing)
        }
      }))
      expect(warnings).toHaveLength(2)
      expect(warnings[0]).toContain(`background checkpoint of ${missing} failed`)
      // Never created: the worker opens existing files only.
      expect(NodeFs.existsSync(missing)).toBe(false)
    }))
})
