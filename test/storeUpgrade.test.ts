import { Reactivity } from "@effect/experimental"
import type { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as NodePath from "node:path"
import * as SqliteVec from "sqlite-vec"
import { controlMigrations, LATEST_CONTROL_MIGRATION } from "../src/storage/sqlite/control/migrations.js"
import { openMigrated } from "../src/storage/sqlite/database.js"
import { userStoreMigrations } from "../src/storage/sqlite/user/migrations.js"
import { STORE_SCHEMA_VERSION } from "../src/version.js"
import { tempDataRoot } from "./support/server.js"

const TURN = "I live in Lyon. My PIN is 4417."

/** A store file opened (and brought up to `migrations`) for the enclosing scope. */
const open = (filename: string, migrations: Migrations, latest: number) =>
  openMigrated({ filename, migrations, latest, extensions: [SqliteVec.getLoadablePath()] }).pipe(Effect.provide(Reactivity.layer))

type Migrations = Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>>

/** The migrations of a schema up to a number: the schema as an earlier build left it. */
const migrationsUpTo = (migrations: Migrations, last: number): Migrations =>
  Object.fromEntries(Object.entries(migrations).filter(([name]) => Number(name.slice(0, 4)) <= last))

const openControl = (filename: string, migrations: Migrations, latest: number) =>
  openMigrated({ filename, migrations, latest }).pipe(Effect.provide(Reactivity.layer))

describe("a control database written before finished jobs dropped their payloads", () => {
  it.effect("drops the payloads of the jobs that had finished, and keeps those of the jobs still to run", () =>
    Effect.gen(function*() {
      const filename = NodePath.join(tempDataRoot(), "service_control.db")
      const before = migrationsUpTo(controlMigrations, 2)
      const job = (id: string, status: string) => ({ job_id: id, kind: "ingest", status, user_id: "alice", payload: JSON.stringify({ messages: [TURN] }), created_at: "now" })
      yield* Effect.scoped(Effect.gen(function*() {
        const sql = yield* openControl(filename, before, 2)
        yield* sql`INSERT INTO jobs ${sql.insert([job("done", "succeeded"), job("failed", "failed"), job("waiting", "pending")])}`
      }))
      yield* Effect.scoped(Effect.gen(function*() {
        const sql = yield* openControl(filename, controlMigrations, LATEST_CONTROL_MIGRATION)
        expect(yield* sql`SELECT job_id, payload FROM jobs ORDER BY job_id`).toEqual([
          { job_id: "done", payload: "{}" },
          { job_id: "failed", payload: "{}" },
          { job_id: "waiting", payload: JSON.stringify({ messages: [TURN] }) }
        ])
      }))
    }))
})

describe("a store written before forgetting reached the turns", () => {
  it.effect("takes the words of the memories archived back then out of their turns when it is opened", () =>
    Effect.gen(function*() {
      const filename = NodePath.join(tempDataRoot(), "store.db")
      const before = migrationsUpTo(userStoreMigrations, 3)
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

describe("a store written before events carried scope", () => {
  it.effect("reads its events as unstamped, visible to every scope", () =>
    Effect.gen(function*() {
      const filename = NodePath.join(tempDataRoot(), "store.db")
      yield* Effect.scoped(Effect.gen(function*() {
        const sql = yield* open(filename, migrationsUpTo(userStoreMigrations, 6), 6)
        yield* sql`INSERT INTO events (event_id, ts, type, reason) VALUES ('trace_old', 'now', 'memory_add', 'stored before')`
      }))
      yield* Effect.scoped(Effect.gen(function*() {
        const sql = yield* open(filename, userStoreMigrations, STORE_SCHEMA_VERSION)
        expect(yield* sql`SELECT event_id, agent_id, run_id, project_id FROM events`).toEqual([
          { event_id: "trace_old", agent_id: null, run_id: null, project_id: null }
        ])
      }))
    }))
})
