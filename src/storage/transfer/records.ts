import type { ApiKeyRow, EdgeRow, EventRow, FactRow, JobRow, RequestLogRow, TurnRow, VectorSpace } from "../../domain/records.js"

/**
 * A user's data and the control plane as both backends hold them, row for row: the same columns
 * under the same names, ids and seqs as stored, vectors as float32. Each backend reads and writes
 * these; what moves between them is nothing else.
 */

/** A record's fields as a plain object type, which rows of any columns can be written from. */
type Plain<T> = { readonly [K in keyof T]: T[K] }

export type SessionRecord = {
  readonly session_id: string
  readonly session_time: string | null
  readonly created_at: string
}

export type TurnRecord = Plain<Omit<TurnRow, "session_time">> & {
  /** The turn as recorded, while archived memories' words are elided from `content`. */
  readonly recorded_content: string | null
  readonly created_at: string
  readonly embedding: Float32Array | null
}

export type SpanRecord = {
  readonly span_id: string
  readonly turn_id: string
  readonly start_offset: number
  readonly end_offset: number
}

export type FactRecord = Plain<FactRow> & {
  readonly created_at: string
  readonly updated_at: string
  readonly embedding: Float32Array | null
}

export type FactSourceRecord = {
  readonly fact_id: string
  readonly span_id: string
}

/** `seq` is the entity's place in creation order (SQLite's rowid, PostgreSQL's identity). */
export type EntityRecord = {
  readonly seq: number
  readonly entity_id: string
  readonly name: string
  readonly normalized_name: string
  readonly profile: string | null
  readonly profile_stale: boolean
  readonly updated_at: string
}

export type RoleRecord = {
  readonly fact_id: string
  readonly entity_id: string
  readonly role: string
}

export type EdgeRecord = Plain<Omit<EdgeRow, "dst_kind">>

export type EventRecord = Plain<EventRow> & { readonly seq: number }

export type AppliedJobRecord = {
  readonly job_id: string
  readonly result: string
  readonly applied_at: string
}

export interface UserTables {
  readonly sessions: ReadonlyArray<SessionRecord>
  readonly turns: ReadonlyArray<TurnRecord>
  readonly spans: ReadonlyArray<SpanRecord>
  readonly facts: ReadonlyArray<FactRecord>
  readonly fact_sources: ReadonlyArray<FactSourceRecord>
  readonly entities: ReadonlyArray<EntityRecord>
  readonly fact_entity_roles: ReadonlyArray<RoleRecord>
  readonly edges: ReadonlyArray<EdgeRecord>
  readonly events: ReadonlyArray<EventRecord>
  readonly applied_jobs: ReadonlyArray<AppliedJobRecord>
}

export type UserTable = keyof UserTables

/** A row of one of the user's tables. */
export type UserRow<T extends UserTable> = UserTables[T][number]

/** Rows of one of the user's tables, told apart by the table's name. */
export type RowBatch = { readonly [T in UserTable]: { readonly table: T; readonly rows: ReadonlyArray<UserRow<T>> } }[UserTable]

/** Tables to gather rows in, all empty. */
export const emptyTables = (): { -readonly [T in UserTable]: Array<UserRow<T>> } => ({
  sessions: [], turns: [], spans: [], facts: [], fact_sources: [], entities: [], fact_entity_roles: [], edges: [], events: [], applied_jobs: []
})

/** A snapshot's tables as batches, in the order they are written (references before their referrers). */
export const snapshotBatches = (tables: UserTables): ReadonlyArray<RowBatch> => [
  { table: "sessions", rows: tables.sessions },
  { table: "turns", rows: tables.turns },
  { table: "spans", rows: tables.spans },
  { table: "facts", rows: tables.facts },
  { table: "fact_sources", rows: tables.fact_sources },
  { table: "entities", rows: tables.entities },
  { table: "fact_entity_roles", rows: tables.fact_entity_roles },
  { table: "edges", rows: tables.edges },
  { table: "events", rows: tables.events },
  { table: "applied_jobs", rows: tables.applied_jobs }
]

/** The vector space of a user's vectors: set by the first vectors written. */
export type VectorSpaceRecord = VectorSpace

export interface UserSnapshot {
  readonly userId: string
  readonly space: VectorSpaceRecord | null
  /** When the user was first written, where the backend records it (PostgreSQL); the copy derives it otherwise. */
  readonly createdAt: string | null
  readonly tables: UserTables
}

/** Each table's columns but the vectors, in the order the tables are written (references before their referrers). */
export const USER_COLUMNS: { readonly [T in UserTable]: ReadonlyArray<Exclude<keyof UserTables[T][number], "embedding">> } = {
  sessions: ["session_id", "session_time", "created_at"],
  turns: ["seq", "turn_id", "session_id", "position", "role", "content", "recorded_content", "agent_id", "run_id", "project_id", "created_at"],
  spans: ["span_id", "turn_id", "start_offset", "end_offset"],
  facts: [
    "seq", "fact_id", "content", "kind", "status", "session_id", "occurred_at", "valid_from", "valid_until", "confidence", "metadata",
    "agent_id", "run_id", "project_id", "superseded_by", "created_at", "updated_at"
  ],
  fact_sources: ["fact_id", "span_id"],
  entities: ["seq", "entity_id", "name", "normalized_name", "profile", "profile_stale", "updated_at"],
  fact_entity_roles: ["fact_id", "entity_id", "role"],
  edges: ["edge_id", "src_fact_id", "dst_id", "edge_type", "predicate", "confidence", "metadata", "created_at"],
  events: ["seq", "event_id", "ts", "type", "memory_id", "session_id", "reason", "details", "agent_id", "run_id", "project_id"],
  applied_jobs: ["job_id", "result", "applied_at"]
}

/** Each table's key, in the order its rows are read: a page of rows starts after the last key of the one before. */
export const USER_ORDER: { readonly [T in UserTable]: ReadonlyArray<keyof UserTables[T][number] & string> } = {
  sessions: ["session_id"],
  turns: ["seq"],
  spans: ["span_id"],
  facts: ["seq"],
  fact_sources: ["fact_id", "span_id"],
  entities: ["seq"],
  fact_entity_roles: ["fact_id", "entity_id", "role"],
  edges: ["edge_id"],
  events: ["seq"],
  applied_jobs: ["job_id"]
}

/** A row's key under USER_ORDER. */
export type RowKey = ReadonlyArray<string | number>

/** Where a page of rows starts (after the key, in the table's order; from the first row for none) and how many it holds at most. */
export interface RowPage {
  readonly after: RowKey | null
  readonly limit: number
}

export const USER_TABLES = Object.keys(USER_COLUMNS).filter((table): table is UserTable => table in USER_COLUMNS)

/** The tables whose rows carry a `seq`: their order is the user's order of writes. */
export const SEQ_TABLES = ["turns", "facts", "entities", "events"] as const

/** The jobs' columns a copy carries: columns added later (leases) keep their defaults. */
export type JobRecord = Plain<JobRow> & {
  readonly payload: string
  readonly started_at: string | null
  readonly attempts: number
}

/** A named key with its hash, so the key itself keeps working. */
export type ApiKeyRecord = Plain<ApiKeyRow> & { readonly key_hash: string }

export type RequestLogRecord = Plain<RequestLogRow>

/** The control plane, each table in the order its rows were written. */
export interface ControlSnapshot {
  readonly jobs: ReadonlyArray<JobRecord>
  readonly api_keys: ReadonlyArray<ApiKeyRecord>
  readonly request_log: ReadonlyArray<RequestLogRecord>
}

export type ControlTable = keyof ControlSnapshot

export const CONTROL_COLUMNS: { readonly [T in ControlTable]: ReadonlyArray<keyof ControlSnapshot[T][number]> } = {
  jobs: ["job_id", "kind", "status", "user_id", "payload", "result", "error", "created_at", "started_at", "finished_at", "attempts"],
  api_keys: ["id", "name", "prefix", "key_hash", "created_at", "last_used_at", "revoked_at"],
  request_log: ["request_id", "method", "route", "status_code", "latency_ms", "key_name", "key_id", "created_at"]
}

export const CONTROL_TABLES = Object.keys(CONTROL_COLUMNS).filter((table): table is ControlTable => table in CONTROL_COLUMNS)

/** Rows per table (user tables, the vectors of facts and turns, or the control plane's), as counted by the backend. */
export type RowCounts = Readonly<Record<string, number>>
