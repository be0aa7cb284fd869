import { Reactivity } from "@effect/experimental"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as NodePath from "node:path"
import * as SqliteVec from "sqlite-vec"
import { openMigrated } from "../src/storage/sqlite/database.js"
import { userStoreMigrations } from "../src/storage/sqlite/user/migrations.js"
import { STORE_SCHEMA_VERSION } from "../src/version.js"
import { tempDataRoot } from "./support/server.js"

const TURN = "I live in Lyon. My PIN is 4417."

/** A store file opened (and brought up to `migrations`) for the enclosing scope. */
const open = (filename: string, migrations: Partial<typeof userStoreMigrations>, latest: number) =>
  openMigrated({ filename, migrations, latest, extensions: [SqliteVec.getLoadablePath()] }).pipe(Effect.provide(Reactivity.layer))

describe("a store written before forgetting reached the turns", () => {
  it.effect("takes the words of the memories archived back then out of their turns when it is opened", () =>
    Effect.gen(function*() {
      const filename = NodePath.join(tempDataRoot(), "store.db")
      const { "0004_forgetting": _, ...before } = userStoreMigrations
      yield* Effect.scoped(Effect.gen(function*() {
        const sql = yield* open(filename, before, 3)
        yield* sql`INSERT INTO sessions (session_id, session_time, created_at) VALUES ('s1', '2025-05-08T10:00:00', 'now')`
        yield* sql`INSERT INTO turns (turn_id, session_id, position, role, content, created_at) VALUES ('s1_turn_1', 's1', 1, 'user', ${TURN}, 'now')`
        yield* sql`INSERT INTO spans (span_id, turn_id, start_offset, end_offset) VALUES ('span_s1_1', 's1_turn_1', 0, ${TURN.length})`
        yield* sql`INSERT INTO facts (fact_id, content, status, created_at, updated_at) VALUES
          ('fact_lyon', 'Alice lives in Lyon', 'active', 'now', 'now'), ('fact_pin', 'Alice''s PIN is 4417', 'archived', 'now', 'now')`
        yield* sql`INSERT INTO fact_sources (fact_id, span_id) VALUES ('fact_lyon', 'span_s1_1'), ('fact_pin', 'span_s1_1')`
      }))
      yield* Effect.scoped(Effect.gen(function*() {
        const sql = yield* open(filename, userStoreMigrations, STORE_SCHEMA_VERSION)
        expect(yield* sql`SELECT content, recorded_content FROM turns`).toEqual([{ content: "I live in Lyon. […]", recorded_content: TURN }])
        expect(yield* sql`SELECT rowid FROM turns_fts WHERE turns_fts MATCH '4417'`).toEqual([])
        expect((yield* sql`SELECT rowid FROM turns_fts WHERE turns_fts MATCH 'lyon'`).length).toBe(1)
        expect(yield* sql`SELECT fact_id, status FROM facts ORDER BY fact_id`).toEqual([
          { fact_id: "fact_lyon", status: "active" },
          { fact_id: "fact_pin", status: "archived" }
        ])
      }))
    }))
})
