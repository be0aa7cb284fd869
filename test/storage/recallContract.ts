import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Option } from "effect"
import { UserStore } from "../../src/storage/UserStore.js"
import type { StorageBackend } from "./contract.js"
import { add, axis, fact, NO_SCOPE, recallQuery, replacing, session, stored, writeSession } from "./fixtures.js"

const recall = (userId: string, query: Parameters<typeof recallQuery>[0]) =>
  Effect.flatMap(UserStore, (store) =>
    Effect.flatMap(store.recall(userId, recallQuery(query)), Option.match({
      onNone: () => Effect.dieMessage(`${userId} has no data`),
      onSome: Effect.succeed
    })))

const PETS = [
  "Alice adopted two beagles last spring",
  "Alice drinks green tea every morning",
  "Alice plays tennis on Sundays",
  "Bob repairs old bicycles"
]

export const recallContract = (backend: StorageBackend) =>
  describe(`${backend.name}: retrieval legs`, () => {
    const run = <A, E>(effect: Effect.Effect<A, E, UserStore>) => Effect.provide(effect, backend.fresh())

    it.effect("the lexical legs rank by the query's words, matching other forms of a word (stemming)", () =>
      run(Effect.gen(function*() {
        yield* writeSession("alice", session("s1", ["I got a beagle puppy", "I love green tea"], PETS.map((text) => add(fact(text)))))
        const legs = yield* recall("alice", { terms: ["beagle", "adopted"] })
        expect(legs.lexicalFacts[0]?.content).toBe("Alice adopted two beagles last spring")
        expect(legs.lexicalFacts.map((row) => row.content)).not.toContain("Bob repairs old bicycles")
        expect(legs.lexicalTurns.map((turn) => turn.row.content)).toEqual(["I got a beagle puppy"])
        expect((yield* recall("alice", { terms: ["zebra"] })).lexicalFacts).toEqual([])
      })))

    it.effect("a turn found by its words is the turn's columns alone, its score beside it rather than in it", () =>
      run(Effect.gen(function*() {
        yield* writeSession("alice", session("s1", ["I got a beagle puppy"], []))
        const [found] = (yield* recall("alice", { terms: ["beagle"] })).lexicalTurns
        expect(Object.keys(found?.row ?? {}).sort()).toEqual(
          ["agent_id", "content", "position", "project_id", "role", "run_id", "seq", "session_id", "session_time", "turn_id"]
        )
        expect(found?.row).toMatchObject({ content: "I got a beagle puppy", session_id: "s1", role: "user" })
        expect(found?.score).toBeGreaterThan(0)
      })))

    it.effect("the words a search selects follow every write: a word a later session makes common gives way to the next rarest", () =>
      run(Effect.gen(function*() {
        // Five words a turn each, and a sixth in three turns: a search matches the five rarest of its words.
        const rare = ["aardvark", "bison", "caribou", "dingo", "emu"]
        yield* writeSession("alice", session("s1", [...rare, "ferret one", "ferret two", "ferret three"]))
        const words = { terms: [...rare, "ferret"] }
        const before = (yield* recall("alice", words)).lexicalTurns.map((turn) => turn.row.content)
        expect([...before].sort()).toEqual(rare)
        // Searched again with nothing written: the same selection.
        expect((yield* recall("alice", words)).lexicalTurns.map((turn) => turn.row.content)).toEqual(before)
        yield* writeSession("alice", session("s2", Array.from({ length: 5 }, (_, i) => `aardvark ${i}`)))
        const after = (yield* recall("alice", words)).lexicalTurns.map((turn) => turn.row.content)
        expect([...after].sort()).toEqual(["bison", "caribou", "dingo", "emu", "ferret one", "ferret three", "ferret two"])
      })))

    it.effect("a rare word weighs more than a common one: the fact holding it ranks first though written last", () =>
      run(Effect.gen(function*() {
        const common = Array.from({ length: 6 }, (_, i) => add(fact(`Alice drank coffee on day ${i}`)))
        yield* writeSession("alice", session("s1", ["x"], [...common, add(fact("Alice saw a zebra"))]))
        const legs = yield* recall("alice", { terms: ["coffee", "zebra"] })
        expect(legs.lexicalFacts[0]?.content).toBe("Alice saw a zebra")
        expect(legs.lexicalFacts).toHaveLength(7)
      })))

    it.effect("the best visible matches come back though many better ones are out of the query's scope", () =>
      run(Effect.gen(function*() {
        const elsewhere = { agent_id: "other-agent", run_id: null, project_id: null }
        const better = Array.from({ length: 20 }, (_, i) => add(fact(`Zebra zebra ${i}`)))
        yield* writeSession("alice", session("s1", ["zebra zebra", "zebra zebra zebra"], better, { scope: elsewhere }))
        yield* writeSession("alice", session("s2", ["a zebra at the zoo today", "one zebra among the many animals of the park"], [
          add(fact("Alice saw a zebra at the zoo")),
          add(fact("Alice once read a long book about the zebra of the plains"))
        ]))
        const mine = { agent_id: "my-agent", run_id: null, project_id: null }
        const legs = yield* recall("alice", { terms: ["zebra"], depth: 2, scope: mine })
        expect(legs.lexicalFacts.map((row) => row.content)).toEqual(["Alice saw a zebra at the zoo", "Alice once read a long book about the zebra of the plains"])
        expect(legs.lexicalTurns.map((turn) => turn.row.content)).toEqual(["a zebra at the zoo today", "one zebra among the many animals of the park"])
        const everyone = yield* recall("alice", { terms: ["zebra"], depth: 2 })
        expect(everyone.lexicalFacts.every((row) => row.content.startsWith("Zebra zebra"))).toBe(true)
        expect(everyone.lexicalTurns.map((turn) => turn.row.content)).toEqual(["zebra zebra zebra", "zebra zebra"])
      })))

    it.effect("similar facts answer each list of terms with current facts only, best first", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        const written = yield* writeSession("alice", session("s1", ["x"], PETS.map((text) => add(fact(text)))))
        const tea = yield* stored("alice", written.facts[1]!.factId)
        yield* writeSession("alice", session("s2", ["y"], [replacing(fact("Alice drinks black coffee"), tea)]))
        const similar = yield* store.similarFacts("alice", { terms: [["tennis", "sundays"], ["green", "tea"], ["zebra"]], scope: NO_SCOPE, limit: 5 })
        expect(similar.map((rows) => rows.map((row) => row.content))).toEqual([["Alice plays tennis on Sundays"], [], []])
        expect(yield* store.similarFacts("nobody", { terms: [["tea"]], scope: NO_SCOPE, limit: 5 })).toEqual([[]])
      })))

    it.effect("superseded facts are found only when the query asks for them", () =>
      run(Effect.gen(function*() {
        const written = yield* writeSession("alice", session("s1", ["x"], [add(fact("Alice lives in Paris"))]))
        const old = yield* stored("alice", written.facts[0]!.factId)
        yield* writeSession("alice", session("s2", ["y"], [replacing(fact("Alice lives in Lyon"), old)]))
        expect((yield* recall("alice", { terms: ["paris"] })).lexicalFacts).toEqual([])
        expect((yield* recall("alice", { terms: ["paris"], statuses: ["active", "superseded"] })).lexicalFacts.map((row) => row.fact_id)).toEqual([old.fact_id])
      })))

    it.effect("the vector leg finds the nearest facts and turns; it says why when it cannot run", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        yield* writeSession("alice", session("s1", ["turn zero", "turn one"], [add(fact("fact on axis 3"), axis(3)), add(fact("fact on axis 5"), axis(5))], {
          turnVectors: [axis(0), axis(1)]
        }))
        const legs = yield* recall("alice", { vector: Either.right(axis(5, 0.1)) })
        if (Either.isLeft(legs.vector)) return expect.unreachable(legs.vector.left)
        expect(legs.vector.right.facts.map((row) => row.content)).toEqual(["fact on axis 5", "fact on axis 3"])
        const nearestTurn = (vector: Float32Array) => Effect.map(recall("alice", { vector: Either.right(vector) }), (found) => Either.map(found.vector, (near) => near.turns[0]?.content))
        expect(yield* nearestTurn(axis(0))).toEqual(Either.right("turn zero"))
        expect(yield* nearestTurn(axis(1))).toEqual(Either.right("turn one"))
        expect(Either.isLeft((yield* recall("alice", { vector: Either.right(new Float32Array(16).fill(1)) })).vector)).toBe(true)
        expect((yield* recall("alice", { vector: Either.left("no embedder") })).vector).toEqual(Either.left("no embedder"))
        const nearest = yield* store.nearestFacts("alice", { vectors: [axis(3), axis(5)], scope: NO_SCOPE, limit: 1 })
        expect(nearest.map((rows) => rows.map((row) => row.content))).toEqual([["fact on axis 3"], ["fact on axis 5"]])
        expect(yield* store.nearestFacts("alice", { vectors: [new Float32Array(4)], scope: NO_SCOPE, limit: 1 })).toEqual([[]])
      })))

    it.effect("a store without vectors reports the vector leg as not runnable", () =>
      run(Effect.gen(function*() {
        yield* writeSession("alice", session("s1", ["x"], [add(fact("no vector here"))]))
        expect(Either.isLeft((yield* recall("alice", { vector: Either.right(axis(0)) })).vector)).toBe(true)
      })))

    it.effect("the entity leg finds the facts of the entities the query names", () =>
      run(Effect.gen(function*() {
        yield* writeSession("alice", session("s1", ["x"], [
          add(fact("Rex chased a ball", { entities: [{ name: "Rex", role: "subject" }] })),
          add(fact("Alice walks daily", { entities: [{ name: "Alice", role: "subject" }] }))
        ]))
        expect((yield* recall("alice", { names: ["rex"] })).entityFacts.map((row) => row.content)).toEqual(["Rex chased a ball"])
        expect((yield* recall("alice", { names: ["nobody"] })).entityFacts).toEqual([])
      })))

    it.effect("the time leg returns what happened on the date the query names", () =>
      run(Effect.gen(function*() {
        yield* writeSession("alice", session("s1", ["x"], [
          add(fact("Alice ran a marathon", { occurred: "2023-05-08" })),
          add(fact("Alice moved house", { occurred: "2024-01-02" }))
        ]))
        const legs = yield* recall("alice", { datePrefix: "2023-05" })
        expect(legs.datedFacts.map((row) => row.content)).toEqual(["Alice ran a marathon"])
        expect((yield* recall("alice", { datePrefix: "2025-05-08" })).datedTurns.map((row) => row.content)).toEqual(["x"])
      })))

    it.effect("the neighbourhood leg brings the turns next to the best lexical turns", () =>
      run(Effect.gen(function*() {
        yield* writeSession("alice", session("s1", ["What pet do you have?", "I have a parrot called Kiwi", "Nice, does it talk?"]))
        const legs = yield* recall("alice", { terms: ["parrot"] })
        expect(legs.lexicalTurns.map((turn) => turn.row.content)).toEqual(["I have a parrot called Kiwi"])
        expect(legs.neighbours.map((row) => row.content)).toEqual(["What pet do you have?", "I have a parrot called Kiwi", "Nice, does it talk?"])
      })))

    it.effect("the neighbourhood reaches as far either side as asked, within the seed's session and the query's scope", () =>
      run(Effect.gen(function*() {
        const turns = ["t1 hello", "t2 what pet", "t3 I have a parrot", "t4 nice", "t5 it talks", "t6 far away", "t7 parrot, parrot"]
        yield* writeSession("alice", session("s1", turns))
        yield* writeSession("alice", session("s2", ["u1 other session", "u2 other session"]))
        const legs = yield* recall("alice", { terms: ["parrot"], neighbourSeeds: 1, neighbourReach: 2 })
        // The turn saying it twice ranks first: it alone is the seed, at the end of its session.
        expect(legs.lexicalTurns.map((turn) => turn.row.content)).toEqual(["t7 parrot, parrot", "t3 I have a parrot"])
        expect(legs.neighbours.map((row) => row.content)).toEqual(["t5 it talks", "t6 far away", "t7 parrot, parrot"])
        const both = yield* recall("alice", { terms: ["parrot"], neighbourSeeds: 2, neighbourReach: 2 })
        expect(both.neighbours.map((row) => row.content)).toEqual(turns)
        // The same session written on for another project: its turns are out of this project's neighbourhood.
        const p1 = { ...NO_SCOPE, project_id: "p1" }
        yield* writeSession("bob", session("s1", ["kiwi here", "p1 chat"], [], { scope: p1 }))
        yield* writeSession("bob", session("s1", ["p2 secret"], [], { scope: { ...NO_SCOPE, project_id: "p2" } }))
        expect((yield* recall("bob", { terms: ["kiwi"], neighbourReach: 2, scope: p1 })).neighbours.map((row) => row.content)).toEqual(["kiwi here", "p1 chat"])
      })))

    it.effect("equal bm25 scores come in the order written", () =>
      run(Effect.gen(function*() {
        const said = ["zebra red", "zebra tan", "zebra sky", "zebra fog"]
        yield* writeSession("alice", session("s1", said, said.map((text) => add(fact(text)))))
        yield* writeSession("alice", session("s2", ["nothing here", "nor here", "still nothing", "none at all", "empty", "quiet"]))
        const legs = yield* recall("alice", { terms: ["zebra"] })
        expect(legs.lexicalTurns.map((turn) => turn.row.content)).toEqual(said)
        expect(legs.lexicalFacts.map((row) => row.content)).toEqual(said)
      })))

    it.effect("a lexical turn comes with its bm25 score: best first, a rarer word and a shorter turn scoring higher", () =>
      run(Effect.gen(function*() {
        yield* writeSession("alice", session("s1", [
          "we went hiking by the lake",
          "we went hiking in the mountains near the old lake house with the whole family",
          "hiking again",
          "hiking with friends",
          "the kayak was fun"
        ]))
        const legs = yield* recall("alice", { terms: ["lake", "hiking", "kayak"] })
        const scores = legs.lexicalTurns.map((turn) => turn.score)
        expect(scores.every((score) => score > 0)).toBe(true)
        expect([...scores].sort((a, b) => b - a)).toEqual(scores)
        const scoreOf = (content: string) => legs.lexicalTurns.find((turn) => turn.row.content === content)!.score
        expect(scoreOf("we went hiking by the lake")).toBeGreaterThan(scoreOf("we went hiking in the mountains near the old lake house with the whole family"))
        expect(scoreOf("the kayak was fun")).toBeGreaterThan(scoreOf("hiking again"))
      })))

    it.effect("every leg honours scope: a fact or turn stamped with another value is out", () =>
      run(Effect.gen(function*() {
        yield* writeSession("alice", session("s1", ["kiwi for p1"], [add(fact("kiwi fact for p1"), axis(2))], { scope: { ...NO_SCOPE, project_id: "p1" }, turnVectors: [axis(2)] }))
        yield* writeSession("alice", session("s2", ["kiwi for p2"], [add(fact("kiwi fact for p2"), axis(2))], { scope: { ...NO_SCOPE, project_id: "p2" }, turnVectors: [axis(2)] }))
        const legs = yield* recall("alice", { terms: ["kiwi"], vector: Either.right(axis(2)), scope: { ...NO_SCOPE, project_id: "p1" } })
        expect(legs.lexicalFacts.map((row) => row.content)).toEqual(["kiwi fact for p1"])
        expect(legs.lexicalTurns.map((turn) => turn.row.content)).toEqual(["kiwi for p1"])
        const vector = Either.getOrElse(legs.vector, () => ({ facts: [], turns: [] }))
        expect(vector.facts.map((row) => row.content)).toEqual(["kiwi fact for p1"])
        expect(vector.turns.map((row) => row.content)).toEqual(["kiwi for p1"])
      })))

    it.effect("a user with no data has no legs to run", () =>
      run(Effect.gen(function*() {
        expect(yield* (yield* UserStore).recall("nobody", recallQuery({ terms: ["anything"] }))).toEqual(Option.none())
      })))
  })
