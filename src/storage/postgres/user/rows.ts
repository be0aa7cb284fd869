import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { ScopeFilter } from "../../../domain/records.js"
import { chunks } from "../../transfer/chunks.js"

/** The fact columns as a FactRow, on a query that names facts `f`. */
export const FACT_COLUMNS = `f.seq, f.fact_id, f.content, f.kind, f.status, f.session_id, f.occurred_at, f.valid_from, f.valid_until,
  f.confidence, f.metadata, f.agent_id, f.run_id, f.project_id, f.superseded_by`

/** The event columns as an EventRow, on a query that names events `e`. */
export const EVENT_COLUMNS = "e.event_id, e.ts, e.type, e.memory_id, e.session_id, e.reason, e.details, e.agent_id, e.run_id, e.project_id"

/** The turn columns as a TurnRow, on a query that names turns `t` and their sessions `s`. */
export const TURN_COLUMNS = "t.seq, t.turn_id, t.session_id, t.position, t.role, t.content, t.agent_id, t.run_id, t.project_id, s.session_time"

/** Narrowing scope on the rows aliased `alias`: a row stamped with another value is out; an unstamped one is in. */
export const scopedTo = (sql: SqlClient.SqlClient, alias: string, scope: ScopeFilter) =>
  sql.and([
    sql`TRUE`,
    ...(["agent_id", "run_id", "project_id"] as const).flatMap((key) =>
      scope[key] === null ? [] : [sql`(${sql.literal(`${alias}.${key}`)} IS NULL OR ${sql.literal(`${alias}.${key}`)} = ${scope[key]})`])
  ])

/** A vector as pgvector reads it from text. */
export const vectorText = (vector: Float32Array) => `[${Array.from(vector).join(",")}]`

/** `column IN (values)`, false for no values (PostgreSQL refuses an empty list). */
export const inList = (sql: SqlClient.SqlClient, column: string, values: ReadonlyArray<string | number>) =>
  values.length === 0 ? sql`FALSE` : sql`${sql.literal(column)} IN ${sql.in(values)}`

/** Keys per statement: PostgreSQL binds at most 65,535 parameters in one. */
const KEYS_PER_STATEMENT = 5_000

/**
 * Rows per INSERT: each binds one parameter per column (a turn with its span fifteen, a memory
 * about twenty), within the 65,535 PostgreSQL binds in one statement.
 */
export const ROWS_PER_INSERT = 1_000

/**
 * The rows of a statement over many keys, or of an INSERT of many rows, one statement per part of
 * them (none for no keys).
 */
export const byParts = <K, Row, E>(
  keys: ReadonlyArray<K>,
  query: (part: ReadonlyArray<K>) => Effect.Effect<ReadonlyArray<Row>, E>,
  partSize = KEYS_PER_STATEMENT
) => Effect.map(Effect.forEach(chunks(keys, partSize), query), (parts) => parts.flat())
