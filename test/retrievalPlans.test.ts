import { Reactivity } from "@effect/experimental"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect } from "effect"
import * as NodePath from "node:path"
import { RetrievalQueries } from "../src/store/user/retrieval.js"
import { ingestTurn, startServer } from "./support/server.js"

const NO_SCOPE = { agent_id: null, run_id: null, project_id: null }

describe("query plans of the retrieval legs", () => {
  it.scoped("a dated read of facts walks the date index in order instead of sorting every visible fact", () =>
    Effect.gen(function*() {
      const { baseUrl, dataRoot } = yield* startServer()
      yield* ingestTurn(baseUrl, "alice", "hello")
      const file = NodePath.join(dataRoot, "alice", "store.db")
      const sql = yield* SqliteClient.make({ filename: file, readonly: true })
      const [text, params] = RetrievalQueries(sql)
        .facts({ expression: null, scope: NO_SCOPE, statuses: ["active"], datePrefix: "2023-05", limit: 60 })
        .compile()
      const db = new Database(file, { readonly: true })
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...params) as Array<{ detail: string }>).map((row) => row.detail)
      db.close()
      expect(plan.join("; ")).toContain("USING INDEX facts_by_occurred")
      expect(plan.join("; ")).not.toContain("TEMP B-TREE")
    }).pipe(Effect.provide(Reactivity.layer)))
})
