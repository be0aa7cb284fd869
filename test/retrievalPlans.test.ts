import { Reactivity } from "@effect/experimental"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect } from "effect"
import * as NodePath from "node:path"
import { RetrievalQueries } from "../src/storage/sqlite/user/retrieval.js"
import { ingestTurn, startServer } from "./support/server.js"
import { seedFacts } from "./support/userRows.js"

const NO_SCOPE = { agent_id: null, run_id: null, project_id: null }

describe("query plans of the retrieval legs", () => {
  it.scoped("a dated read of facts walks the date index in order instead of sorting every visible fact", () =>
    Effect.gen(function*() {
      const { baseUrl, dataRoot } = yield* startServer()
      yield* ingestTurn(baseUrl, "alice", "hello")
      const file = NodePath.join(dataRoot, "alice", "store.db")
      const sql = yield* SqliteClient.make({ filename: file, readonly: true })
      const [text, params] = RetrievalQueries(sql)
        .factsOnDate({ scope: NO_SCOPE, statuses: ["active"], datePrefix: "2023-05", limit: 60 })
        .compile()
      const db = new Database(file, { readonly: true })
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...params) as Array<{ detail: string }>).map((row) => row.detail)
      db.close()
      expect(plan.join("; ")).toContain("USING INDEX facts_by_occurred")
      expect(plan.join("; ")).not.toContain("TEMP B-TREE")
    }).pipe(Effect.provide(Reactivity.layer)))
})

describe("lookups by many keys", () => {
  it.scoped("rows by more rowids or terms than SQLite binds in one statement come back whole, in the order asked", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const { baseUrl, dataRoot } = server
      yield* ingestTurn(baseUrl, "alice", "hello")
      yield* seedFacts(server, "alice", ["first", "second", "third"].map((word) => ({ fact_id: `fact_${word}`, content: `the ${word} fact` })))
      const sql = yield* SqliteClient.make({ filename: NodePath.join(dataRoot, "alice", "store.db"), readonly: true })
      const q = RetrievalQueries(sql)
      const [first, second, third] = (yield* q.factsBySeq([1, 2, 3], NO_SCOPE, ["active"])).map((row) => row.seq)
      // 40,000 rowids (SQLite binds at most 32,766 parameters); two real ones out of rowid order, one at the far end.
      const asked = [third!, first!, ...Array.from({ length: 40_000 }, (_, i) => 100_000 + i), second!]
      expect((yield* q.factsBySeq(asked, NO_SCOPE, ["active"])).map((row) => row.content)).toEqual(["the third fact", "the first fact", "the second fact"])
      expect((yield* q.turnsBySeq([...Array.from({ length: 40_000 }, (_, i) => 100_000 + i), 1], NO_SCOPE)).map((row) => row.content)).toEqual(["hello"])
      const terms = [...Array.from({ length: 40_000 }, (_, i) => `zz${i}`), "second"]
      expect(yield* q.termFrequencies("facts", terms)).toEqual([{ term: "second", doc: 1 }])
    }).pipe(Effect.provide(Reactivity.layer)))
})

describe("turns by their words", () => {
  it.scoped("without a scope (read best first from the index alone, then the turns of those hits): the same turns, scores and order as the scoped read that keeps them all", () =>
    Effect.gen(function*() {
      const { baseUrl, dataRoot } = yield* startServer()
      // Many equal scores (the same text), several sessions, and more matches than the limit.
      for (let i = 0; i < 12; i++) yield* ingestTurn(baseUrl, "alice", i % 3 === 0 ? "the beagle ran home" : `a beagle named Rex number ${i % 4} barked at ${i}`, `s${i % 3}`)
      yield* ingestTurn(baseUrl, "alice", "nothing about dogs here")
      const sql = yield* SqliteClient.make({ filename: NodePath.join(dataRoot, "alice", "store.db"), readonly: true })
      const q = RetrievalQueries(sql)
      // An agent the turns are not stamped with: unstamped turns are in, so this keeps every match, by the scoped statement.
      const everyMatch = { ...NO_SCOPE, agent_id: "some-agent" }
      for (const limit of [1, 5, 11, 50]) {
        const unscoped = yield* q.turnsMatching({ expression: "\"beagl\" OR \"rex\"", scope: NO_SCOPE, limit })
        const scoped = yield* q.turnsMatching({ expression: "\"beagl\" OR \"rex\"", scope: everyMatch, limit })
        expect(unscoped.length).toBe(Math.min(limit, 12))
        expect(unscoped).toEqual(scoped)
      }
    }).pipe(Effect.provide(Reactivity.layer)))
})
