import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { chunks } from "./chunks.js"
import { CONTROL_COLUMNS, CONTROL_TABLES, type ControlSnapshot, type ControlTable, type RowCounts } from "./records.js"

/** Rows per INSERT: well under either engine's bound-parameter limit for the widest control row. */
const ROWS_PER_INSERT = 200

/**
 * The control plane read and appended to as transfer records, on either backend (same tables,
 * same columns): each table in the order its rows were written, which SQLite keeps as the rowid
 * and PostgreSQL as an identity (the log's id on both).
 */
export const ControlRows = (sql: SqlClient.SqlClient) => {
  const writeOrder = (table: ControlTable) =>
    table === "request_log" ? "id" : sql.onDialectOrElse({ pg: () => "seq", orElse: () => "rowid" })
  const select = <Row extends object>(table: ControlTable) =>
    sql<Row>`SELECT ${sql.literal(CONTROL_COLUMNS[table].join(", "))} FROM ${sql.literal(table)} ORDER BY ${sql.literal(writeOrder(table))}`
  const insert = (table: ControlTable, rows: ReadonlyArray<Record<string, unknown>>) =>
    Effect.forEach(chunks(rows, ROWS_PER_INSERT), (batch) => sql`INSERT INTO ${sql.literal(table)} ${sql.insert(batch)}`, { discard: true })
  return {
    read: Effect.all({
      jobs: select<ControlSnapshot["jobs"][number]>("jobs"),
      api_keys: select<ControlSnapshot["api_keys"][number]>("api_keys"),
      request_log: select<ControlSnapshot["request_log"][number]>("request_log")
    }),
    append: (rows: ControlSnapshot) =>
      sql.withTransaction(Effect.all([insert("jobs", rows.jobs), insert("api_keys", rows.api_keys), insert("request_log", rows.request_log)], { discard: true })),
    count: Effect.map(
      Effect.forEach(CONTROL_TABLES, (table) => sql<{ readonly n: number }>`SELECT count(*) AS n FROM ${sql.literal(table)}`),
      (results): RowCounts => Object.fromEntries(CONTROL_TABLES.map((table, i) => [table, results[i]?.[0]?.n ?? 0]))
    )
  }
}
