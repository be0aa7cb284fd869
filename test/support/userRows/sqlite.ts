import { Effect } from "effect"
import * as NodeFs from "node:fs"
import { withControlFile, withStoreFile } from "../stores.js"
import type { ControlRows, Row, UserRows } from "../userRows.js"
import { type Statement, statements } from "./statements.js"

const VECTOR_TABLES = { turns: "turn_vector_data", facts: "fact_vector_data" } as const

/** A store file holds one user, and the control plane none: no statement names a user. */
const sqlite = statements("sqlite", {})

/** A user's rows in their store file under the data root. */
export const sqliteUserRows = (dataRoot: string): UserRows => {
  const all = (userId: string, { text, values }: Statement) =>
    Effect.sync(() => withStoreFile(dataRoot, userId, { readonly: true }, (db) => db.prepare<Array<unknown>, Row>(text).all(...values)))
  return {
    select: (userId, table, query) => all(userId, sqlite.select(table, query)),
    count: (userId, table, where) => Effect.map(all(userId, sqlite.count(table, where)), ([row]) => Number(row?.n)),
    insert: (userId, table, rows) =>
      Effect.sync(() =>
        withStoreFile(dataRoot, userId, { readonly: false }, (db) => {
          for (const row of rows) {
            const { text, values } = sqlite.insert(table, row)
            db.prepare<Array<unknown>>(text).run(...values)
          }
        })
      ),
    matching: (userId, table, word) =>
      Effect.map(all(userId, { text: `SELECT count(*) AS n FROM ${table}_fts WHERE ${table}_fts MATCH ?`, values: [word] }), ([row]) => Number(row?.n)),
    users: Effect.sync(() => NodeFs.readdirSync(dataRoot).filter((name) => name !== ".control").sort()),
    vectorSpace: (userId) =>
      Effect.map(
        all(userId, { text: "SELECT key, value FROM store_meta WHERE key LIKE 'embedding_%'", values: [] }),
        (rows) => {
          const value = (key: string) => rows.find((row) => row.key === key)?.value
          const model = value("embedding_model")
          return typeof model === "string" ? { model, dimensions: Number(value("embedding_dimensions")) } : undefined
        }
      ),
    vectors: (userId, table) =>
      Effect.map(
        all(userId, { text: `SELECT t.content, v.embedding FROM ${table} t JOIN ${VECTOR_TABLES[table]} v ON v.seq = t.seq ORDER BY t.seq`, values: [] }),
        (rows) =>
          rows.map((row) => {
            const bytes = row.embedding instanceof Uint8Array ? Uint8Array.from(row.embedding) : new Uint8Array()
            return { content: String(row.content), vector: new Float32Array(bytes.buffer) }
          })
      )
  }
}

/** The control plane's tables in its file under the data root. */
export const sqliteControlRows = (dataRoot: string): ControlRows => {
  const run = ({ text, values }: Statement) =>
    Effect.sync(() => withControlFile(dataRoot, { readonly: false }, (db) => db.prepare<Array<unknown>>(text).run(...values)))
  return {
    select: (table, query) => {
      const { text, values } = sqlite.select(table, query)
      return Effect.sync(() => withControlFile(dataRoot, { readonly: true }, (db) => db.prepare<Array<unknown>, Row>(text).all(...values)))
    },
    insert: (table, rows) => Effect.forEach(rows, (row) => run(sqlite.insert(table, row)), { discard: true }),
    update: (table, set, where) => Effect.asVoid(run(sqlite.update(table, set, where))),
    count: (table, where) => {
      const { text, values } = sqlite.count(table, where)
      return Effect.sync(() => withControlFile(dataRoot, { readonly: true }, (db) => Number(db.prepare<Array<unknown>, Row>(text).get(...values)?.n)))
    }
  }
}
