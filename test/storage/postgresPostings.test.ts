import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { withClient } from "../../scripts/postgres/cluster.js"
import { postgresStorage } from "../../src/storage/postgres/PostgresStorage.js"
import { postgresTransferEnd } from "../../src/storage/postgres/transfer/PostgresTransferEnd.js"
import { UserStore } from "../../src/storage/UserStore.js"
import { freshDatabase } from "../support/postgres.js"
import { add, AUDIT, fact, recallQuery, replacing, session, stored, writeSession } from "./fixtures.js"

/**
 * The rows' postings, as a lexical leg reads them, against the postings their tsvectors give:
 * rows of one and not the other, for both searchable tables, and how many postings there are.
 */
const drift = (url: string) =>
  Effect.promise(() =>
    withClient(url, async (client) => {
      const count = async (text: string) => Number((await client.query<{ n: string }>(text)).rows[0]?.n)
      const result: Record<string, { readonly postings: number; readonly drifted: number }> = {}
      for (const [table, postings] of [["facts", "fact_postings"], ["turns", "turn_postings"]] as const) {
        const derived = `SELECT r.user_id, u.lexeme, r.seq, cardinality(u.positions) AS frequency, length(r.search) AS document_length
          FROM ${table} r, unnest(r.search) AS u`
        const kept = `SELECT user_id, lexeme, seq, frequency, document_length FROM ${postings}`
        result[table] = {
          postings: await count(`SELECT count(*) AS n FROM ${postings}`),
          drifted: await count(`SELECT count(*) AS n FROM ((${derived} EXCEPT ${kept}) UNION ALL (${kept} EXCEPT ${derived})) AS d`)
        }
      }
      return result
    }))

/** Whether the user's counts of indexed documents and lexemes (bm25's collection size and length) equal their rows'. */
const lexemeCounts = (url: string, userId: string) =>
  Effect.promise(() =>
    withClient(url, async (client) => {
      const row = (await client.query<{ facts: boolean; turns: boolean }>(
        `SELECT facts_lexemes = (SELECT coalesce(sum(length(search)), 0) FROM facts WHERE user_id = $1)
                  AND facts_indexed = (SELECT count(*) FROM facts WHERE user_id = $1) AS facts,
                turns_lexemes = (SELECT coalesce(sum(length(search)), 0) FROM turns WHERE user_id = $1)
                  AND turns_indexed = (SELECT count(*) FROM turns WHERE user_id = $1) AS turns
         FROM users WHERE user_id = $1`,
        [userId]
      )).rows[0]
      return { facts: row?.facts, turns: row?.turns }
    }))

const lexicalFacts = (userId: string, terms: ReadonlyArray<string>) =>
  Effect.flatMap(UserStore, (store) =>
    Effect.map(store.recall(userId, recallQuery({ terms })), (legs) => legs._tag === "Some" ? legs.value.lexicalFacts.map((row) => row.content) : []))

describe("PostgreSQL: the postings the lexical legs read follow every write", () => {
  it.effect("sessions, a supersede, a purge, an archive's and a purge's turn rewrites, an erase and a migration's copy leave exactly the rows' postings", () =>
    Effect.gen(function*() {
      const url = yield* freshDatabase
      const unchanged = { facts: { drifted: 0 }, turns: { drifted: 0 } }
      yield* Effect.gen(function*() {
        const store = yield* UserStore
        const written = yield* writeSession("alice", session("s1", ["I adopted a beagle", "Tea, tea and more tea"], [
          add(fact("Alice adopted a beagle")),
          add(fact("Alice drinks tea tea tea"))
        ]))
        const tea = yield* stored("alice", written.facts[1]!.factId)
        yield* writeSession("alice", session("s2", ["now coffee"], [replacing(fact("Alice drinks coffee"), tea)]))
        yield* writeSession("bob", session("s1", ["Bob rides bicycles"], [add(fact("Bob rides bicycles"))]))
        expect(yield* drift(url)).toMatchObject(unchanged)
        expect(yield* lexemeCounts(url, "alice")).toEqual({ facts: true, turns: true })

        yield* store.purge("alice", written.facts[0]!.factId, AUDIT)
        expect(yield* lexicalFacts("alice", ["beagle"])).toEqual([])
        // Forgetting rewrites turns: their postings follow the text shown.
        const pin = yield* writeSession("alice", session("s3", ["I ride a bike. My PIN is 4417."], [add(fact("Alice rides a bike")), add(fact("Alice's PIN is 4417"))]))
        yield* store.archive("alice", pin.facts[1]!.factId, AUDIT)
        expect(yield* drift(url)).toMatchObject(unchanged)
        yield* store.purge("alice", pin.facts[1]!.factId, AUDIT)
        expect(yield* drift(url)).toMatchObject(unchanged)
        expect(yield* lexemeCounts(url, "alice")).toEqual({ facts: true, turns: true })
        yield* store.erase("bob")
        const after = yield* drift(url)
        expect(after).toMatchObject(unchanged)
        expect(after.facts!.postings).toBeGreaterThan(0)
        expect(yield* lexicalFacts("alice", ["coffee"])).toEqual(["Alice drinks coffee"])
      }).pipe(Effect.provide(postgresStorage({ url: Redacted.make(url), poolMax: 2 })))

      // A migration writes rows in bulk, ids and seqs kept; the postings are built from them.
      const copy = yield* freshDatabase
      yield* Effect.scoped(Effect.gen(function*() {
        const source = yield* postgresTransferEnd(Redacted.make(url))
        const target = yield* postgresTransferEnd(Redacted.make(copy))
        const alice = yield* source.readUser("alice")
        yield* target.replaceUser(alice!)
        yield* target.replaceUser(alice!)
      }))
      expect(yield* drift(copy)).toEqual(yield* drift(url))
      expect(yield* lexicalFacts("alice", ["coffee"]).pipe(Effect.provide(postgresStorage({ url: Redacted.make(copy), poolMax: 2 })))).toEqual([
        "Alice drinks coffee"
      ])
    }))
})
