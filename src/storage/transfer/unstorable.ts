import { unstorableReason } from "../../domain/storableText.js"
import type { ControlSnapshot, ControlTable, UserSnapshot, UserTable } from "./records.js"
import { CONTROL_TABLES, USER_TABLES } from "./records.js"

/** A row holding text no store keeps as it is (NUL, a lone surrogate), written before the service refused such text. */
export interface UnstorableRow {
  /** null: a row of the control plane. */
  readonly user_id: string | null
  readonly table: UserTable | ControlTable
  /** The row's key, as JSON text (so that a NUL or a lone surrogate in it shows as an escape). */
  readonly id: string
  readonly column: string
  readonly reason: "nul" | "lone_surrogate"
}

/** The columns that name a row of each table. */
const KEYS: { readonly [T in UserTable | ControlTable]: ReadonlyArray<string> } = {
  sessions: ["session_id"],
  turns: ["turn_id"],
  spans: ["span_id"],
  facts: ["fact_id"],
  fact_sources: ["fact_id", "span_id"],
  entities: ["entity_id"],
  fact_entity_roles: ["fact_id", "entity_id", "role"],
  edges: ["edge_id"],
  events: ["event_id"],
  applied_jobs: ["job_id"],
  jobs: ["job_id"],
  api_keys: ["id"],
  request_log: ["request_id", "created_at"]
}

const keyOf = (table: UserTable | ControlTable, fields: ReadonlyMap<string, unknown>) => {
  const values = KEYS[table].map((column) => fields.get(column))
  return JSON.stringify(values.length === 1 ? values[0] : values)
}

/** The first column of the row whose text no store keeps, if any. */
const problem = (fields: ReadonlyMap<string, unknown>) => {
  for (const [column, value] of fields) {
    const reason = typeof value === "string" ? unstorableReason(value) : undefined
    if (reason !== undefined) return { column, reason }
  }
  return undefined
}

const scan = (userId: string | null, table: UserTable | ControlTable, rows: ReadonlyArray<object>): Array<UnstorableRow> =>
  rows.flatMap((row) => {
    const fields = new Map<string, unknown>(Object.entries(row))
    const found = problem(fields)
    return found === undefined ? [] : [{ user_id: userId, table, id: keyOf(table, fields), ...found }]
  })

/** The rows whose text every store keeps as it is. */
export const storableRows = <A extends object>(rows: ReadonlyArray<A>): ReadonlyArray<A> =>
  rows.filter((row) => problem(new Map<string, unknown>(Object.entries(row))) === undefined)

export const unstorableUserRows = (snapshot: UserSnapshot): ReadonlyArray<UnstorableRow> =>
  USER_TABLES.flatMap((table) => scan(snapshot.userId, table, snapshot.tables[table]))

export const unstorableControlRows = (control: ControlSnapshot): ReadonlyArray<UnstorableRow> =>
  CONTROL_TABLES.flatMap((table) => scan(null, table, control[table]))

/** One line per row, for a message. */
export const describeUnstorable = (row: UnstorableRow) =>
  `${row.user_id === null ? "control plane" : `user '${row.user_id}'`}, table ${row.table}, row ${row.id}: ` +
  `column ${row.column} holds ${row.reason === "nul" ? "a NUL character (U+0000)" : "a lone UTF-16 surrogate"}`
