import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { PostgresDatabase, postgresDatabase } from "../../src/storage/postgres/database.js"
import { freshDatabase } from "../support/postgres.js"

/** The tables of the control plane, kept on one node; every other table holds users' data. */
const CONTROL_TABLES = ["api_keys", "jobs", "request_log", "schema_migrations", "webhook_queue"]

const migrated = Layer.unwrapEffect(Effect.map(freshDatabase, (url) => postgresDatabase({ url: Redacted.make(url), poolMax: 2 })))

/** The tables docs/backends.md distributes by user_id. */
const distributedInDocs = () => {
  const text = NodeFs.readFileSync(NodePath.join(import.meta.dirname, "../../docs/backends.md"), "utf8")
  return [...text.matchAll(/create_distributed_table\('(\w+)', 'user_id'/g)].map((match) => match[1]!).sort()
}

describe("PostgreSQL schema: the shape a database distributed by user shards", () => {
  it.effect("every table of users' data has a user_id, first in its primary key and in every unique index; the docs distribute exactly those", () =>
    Effect.gen(function*() {
      const sql = yield* PostgresDatabase
      const tables = yield* sql<{ readonly name: string; readonly has_user: boolean }>`
        SELECT c.relname AS name, EXISTS (
          SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'user_id' AND a.attnotnull) AS has_user
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = current_schema() AND c.relkind = 'r' ORDER BY c.relname`
      const userTables = tables.map((table) => table.name).filter((name) => !CONTROL_TABLES.includes(name))
      expect(tables.filter((table) => userTables.includes(table.name) && !table.has_user)).toEqual([])
      expect(userTables).toEqual(distributedInDocs())

      const uniqueIndexes = yield* sql<{ readonly table_name: string; readonly index_name: string; readonly first_column: string }>`
        SELECT c.relname AS table_name, i.relname AS index_name, a.attname AS first_column
        FROM pg_index x
        JOIN pg_class i ON i.oid = x.indexrelid
        JOIN pg_class c ON c.oid = x.indrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
        JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = x.indkey[0]
        WHERE n.nspname = current_schema() AND x.indisunique`
      const offKey = uniqueIndexes.filter((index) => userTables.includes(index.table_name) && index.first_column !== "user_id")
      expect(offKey).toEqual([])
      expect(new Set(uniqueIndexes.map((index) => index.table_name))).toEqual(new Set([...userTables, ...CONTROL_TABLES]))
    }).pipe(Effect.provide(migrated)))
})

