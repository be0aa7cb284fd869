import { Reactivity } from "@effect/experimental"
import { describe, expect, it } from "@effect/vitest"
import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as NodePath from "node:path"
import { makeSqliteClient } from "../src/storage/sqlite/client.js"
import { recallLegs } from "../src/storage/sqlite/user/recall/legs.js"
import { recallQuery } from "./storage/fixtures.js"
import { ingestTurn, startServer } from "./support/server.js"
import { seedFacts } from "./support/userRows.js"

/** The client, and the text of every statement made through it (its template, parameters as `?`). */
const recording = (sql: SqlClient.SqlClient) => {
  const texts: Array<string> = []
  const client = new Proxy(sql, {
    apply: (target, self, args: Array<unknown>) => {
      const [strings] = args
      if (Array.isArray(strings)) texts.push(strings.join("?"))
      return Reflect.apply(target, self, args)
    }
  })
  return { client, texts }
}

// A query naming a person and a date, so that the entity and time legs have something to look for.
const query = recallQuery({ terms: ["lisbon"], names: ["caroline"], datePrefix: "2023-05" })
const OVER_FACTS = /FROM entities|FROM facts f\b|facts_fts/

describe("SQLite: the retrieval legs of a store that holds no facts", () => {
  it.scoped("run no statement over facts or entities beyond the one that finds there are none; with facts, they run", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      yield* ingestTurn(server.baseUrl, "alice", "Caroline moved to Lisbon in May 2023")
      const file = NodePath.join(server.dataRoot, "alice", "store.db")

      const turnsOnly = recording(yield* makeSqliteClient({ filename: file, readonly: true }))
      const legs = yield* recallLegs(turnsOnly.client, query)
      expect(legs.lexicalTurns.map((turn) => turn.row.content)).toEqual(["Caroline moved to Lisbon in May 2023"])
      expect([legs.entityFacts, legs.datedFacts, legs.lexicalFacts]).toEqual([[], [], []])
      expect(turnsOnly.texts.filter((text) => OVER_FACTS.test(text))).toEqual([])

      yield* seedFacts(server, "alice", [{ fact_id: "fact_1", content: "Caroline lives in Lisbon" }])
      const withFacts = recording(yield* makeSqliteClient({ filename: file, readonly: true }))
      yield* recallLegs(withFacts.client, query)
      expect(withFacts.texts.filter((text) => /FROM entities/.test(text))).toHaveLength(1)
      expect(withFacts.texts.filter((text) => /FROM facts f\b/.test(text)).length).toBeGreaterThan(0)
    }).pipe(Effect.provide(Reactivity.layer)), 60_000)
})
