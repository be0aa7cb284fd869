/**
 * How a crash run reads back what a backend stored, beside the running services, and checks that
 * its files or indexes are sound: SQLite through its files, PostgreSQL through SQL.
 */
import Database from "better-sqlite3"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { withClient } from "../postgres/cluster.js"

export interface StoreRows {
  /** Each turn as recorded (archived memories elide their words from the text shown, not from this). */
  readonly turns: ReadonlyArray<{ readonly content: string }>
  readonly facts: ReadonlyArray<{ readonly fact_id: string; readonly content: string; readonly status: string }>
}

export interface StoreCheck {
  /** A user's turns and facts as stored. */
  readonly read: (userId: string) => Promise<StoreRows>
  /** One line per damaged file or index; empty when everything is sound. */
  readonly integrity: () => Promise<ReadonlyArray<string>>
}

const EMPTY: StoreRows = { turns: [], facts: [] }

const withSqlite = <A>(file: string, use: (db: Database.Database) => A): A => {
  const db = new Database(file, { readonly: true, fileMustExist: true })
  try {
    return use(db)
  } finally {
    db.close()
  }
}

/** The embedded backend: one store file per user under the data root, read-only as WAL allows. */
export const sqliteStores = (dataRoot: string): StoreCheck => ({
  read: async (userId) => {
    const file = NodePath.join(dataRoot, userId, "store.db")
    if (!NodeFs.existsSync(file)) return EMPTY
    return withSqlite(file, (db) => {
      // A kill while a store was being created leaves a file without tables, migrated at next use.
      if (db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'turns'").get() === undefined) return EMPTY
      return {
        turns: db.prepare<[], StoreRows["turns"][number]>("SELECT coalesce(recorded_content, content) AS content FROM turns").all(),
        facts: db.prepare<[], StoreRows["facts"][number]>("SELECT fact_id, content, status FROM facts").all()
      }
    })
  },
  integrity: async () => {
    const files = [
      NodePath.join(dataRoot, ".control", "service_control.db"),
      ...NodeFs.readdirSync(dataRoot).map((entry) => NodePath.join(dataRoot, entry, "store.db")).filter((file) => NodeFs.existsSync(file))
    ]
    return files.flatMap((file) => {
      const result = withSqlite(file, (db) =>
        db.prepare<[], { integrity_check: string }>("PRAGMA integrity_check").all().map((row) => row.integrity_check).join("; "))
      return result === "ok" ? [] : [`integrity_check of ${NodePath.relative(dataRoot, file)}: ${result}`]
    })
  }
})


/** Every B-tree index, checked against its table, and every table's heap, by `amcheck`. */
const AMCHECK = `
  SELECT c.relname AS relation, i.indexrelid AS index_id, i.indrelid AS table_id
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE a.amname = 'btree' AND n.nspname = 'public' AND i.indisvalid`

/** The server backend: one database, every user's rows keyed by user_id. */
export const postgresStores = (url: string): StoreCheck => ({
  read: (userId) =>
    withClient(url, async (client) => ({
      turns: (await client.query<StoreRows["turns"][number]>("SELECT coalesce(recorded_content, content) AS content FROM turns WHERE user_id = $1", [userId])).rows,
      facts: (await client.query<StoreRows["facts"][number]>("SELECT fact_id, content, status FROM facts WHERE user_id = $1", [userId])).rows
    })),
  integrity: () =>
    withClient(url, async (client) => {
      await client.query("CREATE EXTENSION IF NOT EXISTS amcheck")
      const indexes = (await client.query<{ relation: string; index_id: number; table_id: number }>(AMCHECK)).rows
      const damaged: Array<string> = []
      for (const index of indexes) {
        try {
          await client.query("SELECT bt_index_check($1::oid::regclass, true)", [index.index_id])
        } catch (error) {
          damaged.push(`amcheck of index ${index.relation}: ${String(error)}`)
        }
      }
      for (const tableId of new Set(indexes.map((index) => index.table_id))) {
        const corrupt = await client.query<{ relation: string; msg: string }>(
          "SELECT $1::oid::regclass::text AS relation, msg FROM verify_heapam($1::oid::regclass)", [tableId])
        damaged.push(...corrupt.rows.map((row) => `amcheck of table ${row.relation}: ${row.msg}`))
      }
      return damaged
    })
})
