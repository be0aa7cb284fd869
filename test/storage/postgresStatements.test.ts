import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, Tracer } from "effect"
import { UserStore } from "../../src/storage/UserStore.js"
import { freshPostgresStorage } from "../support/postgres.js"
import { add, fact, recallQuery, session, writeSession } from "./fixtures.js"

/** Runs `effect` with every SQL statement's text recorded, as the SQL client's spans carry it. */
const statementsOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const native = yield* Effect.tracer
    const texts: Array<string> = []
    const recording = Tracer.make({
      context: native.context,
      span: (...args) => {
        const span = native.span(...args)
        const attribute = span.attribute.bind(span)
        return Object.assign(span, {
          attribute: (key: string, value: unknown) => {
            if (key === "db.query.text") texts.push(String(value))
            attribute(key, value)
          }
        })
      }
    })
    const result = yield* Effect.withTracer(effect, recording)
    return { result, texts }
  })

const recallOf = (userId: string) =>
  Effect.flatMap(UserStore, (store) =>
    Effect.flatMap(store.recall(userId, recallQuery({ terms: ["beagle", "tea"], names: ["beagle", "tea"], datePrefix: "2025-05" })), Option.match({
      onNone: () => Effect.dieMessage(`${userId} has no data`),
      onSome: Effect.succeed
    })))

describe("PostgreSQL: the statements a search and an ingest run", () => {
  it.effect("one statement reads the user and the terms' counts; a user holding no facts runs none over facts", () =>
    Effect.gen(function*() {
      yield* writeSession("turns-only", session("s1", ["I got a beagle puppy", "I love green tea"]))
      yield* writeSession("with-facts", session("s1", ["I got a beagle puppy", "I love green tea"], [add(fact("Alice adopted a beagle"))]))

      const turnsOnly = yield* statementsOf(recallOf("turns-only"))
      expect(turnsOnly.result.lexicalTurns.map((turn) => turn.row.content).sort()).toEqual(["I got a beagle puppy", "I love green tea"])
      expect(turnsOnly.result.datedTurns).toHaveLength(2)
      expect(turnsOnly.result.lexicalFacts).toEqual([])
      expect(turnsOnly.result.entityFacts).toEqual([])
      // The survey, the ranked turns, their neighbourhood and the turns on the date.
      expect(turnsOnly.texts).toHaveLength(4)
      expect(turnsOnly.texts.slice(1).filter((text) => /\bfacts\b|fact_postings|entities/.test(text))).toEqual([])

      const withFacts = yield* statementsOf(recallOf("with-facts"))
      expect(withFacts.result.lexicalFacts.map((row) => row.content)).toEqual(["Alice adopted a beagle"])
      expect(withFacts.result.datedFacts).toEqual([])
      expect(withFacts.texts.filter((text) => /fact_postings"? p\s+JOIN \(VALUES/.test(text))).toHaveLength(1)
      expect(withFacts.texts.filter((text) => /FROM entities/.test(text))).toHaveLength(1)
    }).pipe(Effect.provide(freshPostgresStorage())), 120_000)

  it.effect("a session of turns alone reads no fact, and writes its turns with their postings, spans and counts in one statement", () =>
    Effect.gen(function*() {
      // A new user's first session makes the user's row in the statement that makes the session's.
      const first = yield* statementsOf(writeSession("alice", session("s1", ["first turn"])))
      expect(first.texts.filter((text) => /INSERT INTO users/.test(text))).toEqual([expect.stringMatching(/INSERT INTO users[\s\S]*INSERT INTO sessions/)])
      const { texts } = yield* statementsOf(writeSession("alice", session("s1", ["I got a beagle puppy", "I love green tea"])))
      expect(texts.filter((text) => /FROM facts/.test(text))).toEqual([])
      const turns = texts.filter((text) => /INSERT INTO "?turns"?/.test(text))
      expect(turns).toHaveLength(1)
      expect(turns[0]).toMatch(/INSERT INTO "?turn_postings"?[\s\S]*UPDATE users SET turns_indexed[\s\S]*INSERT INTO "?spans"?/)
      expect(texts.filter((text) => /^\s*(INSERT INTO "?spans"?|UPDATE users SET turns_indexed)/.test(text))).toEqual([])
      const legs = yield* recallOf("alice")
      expect(legs.lexicalTurns.map((turn) => turn.row.content).sort()).toEqual(["I got a beagle puppy", "I love green tea"])
    }).pipe(Effect.provide(freshPostgresStorage())), 120_000)
})
