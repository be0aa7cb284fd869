import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Option } from "effect"
import type { VectorSpace } from "../../src/domain/records.js"
import { type RowToEmbed, UserStore } from "../../src/storage/UserStore.js"
import type { StorageBackend } from "./contract.js"
import { add, AUDIT, axis, fact, MODEL, recallQuery, session, writeSession } from "./fixtures.js"

const OLD: VectorSpace = { model: MODEL, dimensions: 8 }
const NEW: VectorSpace = { model: "contract-embedder-2", dimensions: 16 }

/** The texts written here, each given its own axis. */
const TEXTS = [
  "Alice adopted a beagle",
  "I adopted a beagle",
  "I drink green tea",
  "I play tennis",
  "I moved to Lisbon",
  "I drink tea",
  "I live in Lyon. My PIN is 4417.",
  "I live in Lyon. […]",
  "Alice lives in Lyon",
  "Alice's PIN is 4417"
]

/** A vector of the space for a row: a unit vector along its text's axis. */
const vectorFor = (space: VectorSpace, row: RowToEmbed) => {
  const vector = new Float32Array(space.dimensions)
  vector[TEXTS.indexOf(row.content) % space.dimensions] = 1
  return vector
}

/** Embeds up to `limit` rows of the backlog for the space and stores them. */
const embedBatch = (userId: string, space: VectorSpace, limit: number) =>
  Effect.gen(function*() {
    const store = yield* UserStore
    const rows = yield* store.reembed.backlog(userId, space, limit)
    return yield* store.reembed.store(userId, space, rows.map((row) => ({ ...row, vector: vectorFor(space, row) })))
  })

const vectorLeg = (userId: string, vector: Float32Array) =>
  Effect.flatMap(UserStore, (store) =>
    Effect.map(store.recall(userId, recallQuery({ vector: Either.right(vector) })), (legs) => Option.getOrThrow(legs).vector))

export const reembedContract = (backend: StorageBackend) =>
  describe(`${backend.name}: re-embedding`, () => {
    const run = <A, E>(effect: Effect.Effect<A, E, UserStore>) => Effect.provide(effect, backend.fresh())

    it.effect("a store written without vectors lists its facts then its turns, and is embedded batch by batch", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        yield* writeSession("alice", session("s1", ["I adopted a beagle", "", "I drink tea"], [add(fact("Alice adopted a beagle"))]))
        const first = yield* store.reembed.backlog("alice", OLD, 2)
        expect(first.map((row) => [row.index, row.content])).toEqual([["fact", "Alice adopted a beagle"], ["turn", "I adopted a beagle"]])
        expect(yield* store.reembed.remaining("alice", OLD)).toBe(3)
        expect(Either.isLeft(yield* vectorLeg("alice", axis(0)))).toBe(true)
        const stored = yield* embedBatch("alice", OLD, 2)
        expect(stored).toEqual({ stored: 2, remaining: 1, switched: false })
        expect(yield* embedBatch("alice", OLD, 2)).toEqual({ stored: 1, remaining: 0, switched: false })
        // Rows already embedded are not stored again.
        expect(yield* store.reembed.store("alice", OLD, first.map((row) => ({ ...row, vector: vectorFor(OLD, row) })))).toEqual({
          stored: 0,
          remaining: 0,
          switched: false
        })
        const leg = yield* vectorLeg("alice", vectorFor(OLD, first[0]!))
        expect(Either.getOrThrow(leg).facts.map((row) => row.content)).toEqual(["Alice adopted a beagle"])
        expect(yield* store.reembed.backlog("nobody", OLD, 10)).toEqual([])
        expect(yield* store.reembed.remaining("nobody", OLD)).toBe(0)
      })))

    it.effect("a switch of model and dimension stages the new vectors while the old ones serve, and swaps them in at the end", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        const texts = ["I adopted a beagle", "I drink green tea", "I play tennis"]
        yield* writeSession("alice", session("s1", texts, [add(fact("Alice adopted a beagle"), axis(0))], { turnVectors: texts.map((_, i) => axis(i + 1)) }))
        expect((yield* store.reembed.remaining("alice", OLD))).toBe(0)
        expect((yield* store.reembed.remaining("alice", NEW))).toBe(4)
        expect(yield* embedBatch("alice", NEW, 3)).toEqual({ stored: 3, remaining: 1, switched: false })
        // The old vectors still serve, and a row written meanwhile without a vector joins the backlog.
        expect(Either.getOrThrow(yield* vectorLeg("alice", axis(0))).facts.map((row) => row.content)).toEqual(["Alice adopted a beagle"])
        expect(Either.isLeft(yield* vectorLeg("alice", new Float32Array(16).fill(0.25)))).toBe(true)
        yield* writeSession("alice", session("s2", ["I moved to Lisbon"]))
        const left = yield* store.reembed.backlog("alice", NEW, 10)
        expect(left.map((row) => row.content)).toEqual(["I play tennis", "I moved to Lisbon"])
        expect(yield* embedBatch("alice", NEW, 10)).toEqual({ stored: 2, remaining: 0, switched: true })
        const moved = left[1]!
        const leg = Either.getOrThrow(yield* vectorLeg("alice", vectorFor(NEW, moved)))
        expect(leg.turns[0]?.content).toBe("I moved to Lisbon")
        expect(Either.isLeft(yield* vectorLeg("alice", axis(0)))).toBe(true)
        expect((yield* store.reembed.remaining("alice", NEW))).toBe(0)
        expect((yield* store.reembed.remaining("alice", OLD))).toBe(5)
      })))

    it.effect("a staged vector goes when its turn's text changes: a turn an archive rewrote is embedded again from what it shows", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        const written = yield* writeSession("alice", session("s1", ["I live in Lyon. My PIN is 4417.", "I drink tea"], [
          add(fact("Alice lives in Lyon"), axis(3)),
          add(fact("Alice's PIN is 4417"), axis(5))
        ], { turnVectors: [axis(0), axis(1)] }))
        // Both facts and the first turn staged; the second turn holds the switch back.
        expect(yield* embedBatch("alice", NEW, 3)).toEqual({ stored: 3, remaining: 1, switched: false })
        yield* store.archive("alice", written.facts[1]!.factId, AUDIT)
        const left = yield* store.reembed.backlog("alice", NEW, 10)
        expect(left.map((row) => row.content)).toEqual(["I live in Lyon. […]", "I drink tea"])
        expect(yield* embedBatch("alice", NEW, 10)).toEqual({ stored: 2, remaining: 0, switched: true })
      })))

    it.effect("a staged vector goes with its row: a purged memory's does not hold the switch back", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        const written = yield* writeSession("alice", session("s1", ["I adopted a beagle"], [add(fact("Alice adopted a beagle"), axis(0))], {
          turnVectors: [axis(1)]
        }))
        yield* embedBatch("alice", NEW, 1)
        const factId = written.facts[0]!.factId
        expect(Option.isSome(yield* store.purge("alice", factId, AUDIT))).toBe(true)
        // The turn, whose words the purge may have redacted, is embedded again only if its text changed.
        const left = yield* store.reembed.backlog("alice", NEW, 10)
        expect(left.filter((row) => row.index === "fact")).toEqual([])
        expect(yield* embedBatch("alice", NEW, 10)).toMatchObject({ remaining: 0, switched: true })
      })))
  })
