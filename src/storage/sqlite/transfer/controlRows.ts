import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { CONTROL_COLUMNS, CONTROL_TABLES, type ControlSnapshot, type ControlTable, type RowCounts } from "../../transfer/records.js"
import { insertBatches } from "../user/batches.js"

/** The control database read and appended to as transfer records, each table in the order its rows were written. */
export const ControlRows = (sql: SqlClient.SqlClient) => {
  const select = <Row extends object>(table: ControlTable) =>
    sql<Row>`SELECT ${sql.literal(CONTROL_COLUMNS[table].join(", "))} FROM ${sql.literal(table)} ORDER BY rowid`
  const insert = (table: ControlTable, rows: ReadonlyArray<Record<string, unknown>>) =>
    Effect.forEach(insertBatches(rows), (batch) => sql`INSERT INTO ${sql.literal(table)} ${sql.insert(batch)}`, { discard: true })
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
