import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer, Redacted } from "effect"
import type { ControlStore } from "../../src/storage/ControlStore.js"
import { postgresStorage } from "../../src/storage/postgres/PostgresStorage.js"
import { UserStore } from "../../src/storage/UserStore.js"
import { freshDatabase } from "../support/postgres.js"
import { add, axis, fact, recallQuery, session, writeSession } from "./fixtures.js"

/**
 * Two processes on one database each keep their own copy of a user's vector bits: what one
 * writes, purges or erases, the other's vector leg must see at its next query.
 */
describe("PostgreSQL: each process's copy of a user's vector bits follows what other processes write", () => {
  const nearestFacts = (vector: Float32Array, userId = "alice") =>
    Effect.flatMap(UserStore, (store) =>
      Effect.map(store.recall(userId, recallQuery({ vector: Either.right(vector) })), (legs) => {
        const found = legs._tag === "Some" ? legs.value.vector : Either.left("no data")
        return Either.getOrElse(Either.map(found, (near) => near.facts.map((row) => row.content)), () => [] as Array<string>)
      }))

  it.effect("rows added, a row purged, and the user erased and begun again elsewhere are all seen", () =>
    Effect.gen(function*() {
      const url = Redacted.make(yield* freshDatabase)
      const process = () =>
        Effect.map(Layer.build(postgresStorage({ url, poolMax: 2 })), (context) => <A, E>(effect: Effect.Effect<A, E, UserStore | ControlStore>) =>
          Effect.provide(effect, context))
      const writer = yield* process()
      const reader = yield* process()

      yield* writer(writeSession("alice", session("s1", ["one"], [add(fact("fact on axis 3"), axis(3))])))
      expect(yield* reader(nearestFacts(axis(3)))).toEqual(["fact on axis 3"])

      const added = (yield* writer(writeSession("alice", session("s2", ["two"], [add(fact("fact on axis 5"), axis(5))])))).facts[0]!
      expect((yield* reader(nearestFacts(axis(5))))[0]).toBe("fact on axis 5")

      yield* writer(Effect.flatMap(UserStore, (store) => store.purge("alice", added.factId, { actor: "test", requestId: null })))
      expect(yield* reader(nearestFacts(axis(5)))).toEqual(["fact on axis 3"])

      // Begun again with as many vectors as before: only the generation tells the copies apart.
      yield* writer(writeSession("bob", session("s1", ["one"], [add(fact("bob's fact on axis 2"), axis(2))])))
      expect(yield* reader(nearestFacts(axis(2), "bob"))).toEqual(["bob's fact on axis 2"])
      yield* writer(Effect.flatMap(UserStore, (store) => store.erase("bob")))
      yield* writer(writeSession("bob", session("s2", ["two"], [add(fact("bob's fact on axis 6"), axis(6))])))
      expect(yield* reader(nearestFacts(axis(6), "bob"))).toEqual(["bob's fact on axis 6"])
    }).pipe(Effect.scoped))
})
