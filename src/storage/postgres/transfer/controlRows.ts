import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { CONTROL_COLUMNS, CONTROL_TABLES, type ControlSnapshot, type ControlTable, type RowCounts } from "../../transfer/records.js"

/** The order rows were written in: keys and jobs by their identity, the log by its id. */
const ORDER: Record<ControlTable, string> = { jobs: "seq", api_keys: "seq", request_log: "id" }

/** The control plane read and appended to as transfer records (only the columns a copy carries). */
export const ControlRows = (sql: SqlClient.SqlClient) => {
  const select = <Row extends object>(table: ControlTable) =>
    sql<Row>`SELECT ${sql.literal(CONTROL_COLUMNS[table].join(", "))} FROM ${sql(table)} ORDER BY ${sql.literal(ORDER[table])}`
  const insert = (table: ControlTable, rows: ReadonlyArray<Record<string, unknown>>) =>
    rows.length === 0 ? Effect.void : sql`INSERT INTO ${sql(table)} ${sql.insert(rows)}`.pipe(Effect.asVoid)
  return {
    read: Effect.all({
      jobs: select<ControlSnapshot["jobs"][number]>("jobs"),
      api_keys: select<ControlSnapshot["api_keys"][number]>("api_keys"),
      request_log: select<ControlSnapshot["request_log"][number]>("request_log")
    }),
    append: (rows: ControlSnapshot) =>
      sql.withTransaction(Effect.all([insert("jobs", rows.jobs), insert("api_keys", rows.api_keys), insert("request_log", rows.request_log)], { discard: true })),
    count: Effect.map(
      Effect.forEach(CONTROL_TABLES, (table) => sql<{ readonly n: number }>`SELECT count(*) AS n FROM ${sql(table)}`),
      (results): RowCounts => Object.fromEntries(CONTROL_TABLES.map((table, i) => [table, results[i]?.[0]?.n ?? 0]))
    )
  }
}
