import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Stream } from "effect"
import { UNSCOPED } from "../../src/domain/records.js"
import { type RowBatch, USER_ORDER } from "../../src/storage/transfer/records.js"
import { UserStore } from "../../src/storage/UserStore.js"
import type { StorageBackend } from "./contract.js"
import { add, AUDIT, fact, LOADED, MODEL, session, writeSession } from "./fixtures.js"

/** Every page of every table of a user, a few rows at a time. */
const allBatches = (userId: string, vectors: boolean) =>
  Effect.gen(function*() {
    const store = yield* UserStore
    const batches: Array<RowBatch> = []
    for (const table of ["sessions", "turns", "spans", "facts", "fact_sources", "entities", "fact_entity_roles", "edges", "events"] as const) {
      let after: ReadonlyArray<string | number> | null = null
      for (;;) {
        const batch: RowBatch = yield* store.portability.page(userId, table, { after, limit: 2 }, vectors)
        if (batch.rows.length > 0) batches.push(batch)
        if (batch.rows.length < 2) break
        const last: Record<string, unknown> = batch.rows[batch.rows.length - 1]!
        after = USER_ORDER[table].map((column) => {
          const value = last[column]
          return typeof value === "number" ? value : String(value)
        })
      }
    }
    return batches
  })

export const portabilityContract = (backend: StorageBackend) =>
  describe(`${backend.name}: a user read page by page and loaded whole`, () => {
    const run = <A, E>(effect: Effect.Effect<A, E, UserStore>) => Effect.provide(effect, backend.fresh())

    it.effect("pages read every row once in key order; a load writes them and its event as one unit, only into a user without data", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        const vector = new Float32Array(8).fill(0.5)
        yield* writeSession("alice", session("s1", ["I adopted a beagle", "I drink tea", "I play tennis"], [
          add(fact("Alice adopted a beagle", { entities: [{ name: "Rex", role: "pet" }] }), vector),
          add(fact("Alice drinks tea"), vector)
        ]))
        expect(yield* store.portability.holds("alice")).toBe(true)
        expect(yield* store.portability.holds("nobody")).toBe(false)
        expect(yield* store.portability.space("alice")).toEqual({ model: MODEL, dimensions: 8 })
        const batches = yield* allBatches("alice", true)
        const rows = (table: RowBatch["table"]): Array<Record<string, unknown>> =>
          batches.filter((batch) => batch.table === table).flatMap((batch): ReadonlyArray<Record<string, unknown>> => batch.rows)
        expect(rows("turns").map((row) => row.content)).toEqual(["I adopted a beagle", "I drink tea", "I play tennis"])
        expect(rows("facts")).toHaveLength(2)
        expect(rows("facts").every((row) => row.embedding instanceof Float32Array)).toBe(true)
        expect(rows("entities").map((row) => row.name)).toEqual(["Rex"])

        const loaded = yield* store.portability.load("copy", { space: { model: MODEL, dimensions: 8 }, batches: Stream.fromIterable(batches), event: () => LOADED, audit: AUDIT })
        expect(loaded).toBe("Loaded")
        const notEvents = (all: ReadonlyArray<RowBatch>) => all.filter((batch) => batch.table !== "events")
        expect(notEvents(yield* allBatches("copy", true))).toEqual(notEvents(batches))
        const events = yield* store.events("copy", { type: null, scope: UNSCOPED, offset: 0, limit: 10 })
        expect(events.rows[0]).toMatchObject({ reason: "loaded", type: "memory_add" })
        expect(events.total).toBe(rows("events").length + 1)
        const again = yield* store.portability.load("copy", { space: null, batches: Stream.fromIterable(batches), event: () => LOADED, audit: AUDIT })
        expect(again).toBe("Occupied")
      })))

    it.effect("a load whose batches fail midway writes nothing", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        yield* writeSession("alice", session("s1", ["I adopted a beagle"], [add(fact("Alice adopted a beagle"))]))
        const batches = yield* allBatches("alice", false)
        const failing = Stream.concat(Stream.fromIterable(batches), Stream.fail("line 9: refused"))
        const outcome = yield* Effect.either(store.portability.load("copy", { space: null, batches: failing, event: () => LOADED, audit: AUDIT }))
        expect(outcome).toEqual(Either.left("line 9: refused"))
        expect(yield* store.portability.holds("copy")).toBe(false)
        expect((yield* store.portability.page("copy", "turns", { after: null, limit: 10 }, false)).rows).toEqual([])
      })))
  })
