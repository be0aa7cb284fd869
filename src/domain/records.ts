/**
 * The domain's records, as the storage ports take them in and hand them back, whatever the
 * backend. Text columns that hold JSON (metadata, details, results) stay text: callers parse them.
 */

/** One version of a memory. `seq` orders facts by when they were written. */
export interface FactRow {
  readonly seq: number
  readonly fact_id: string
  readonly content: string
  readonly kind: string
  readonly status: string
  readonly session_id: string | null
  readonly occurred_at: string | null
  readonly valid_from: string | null
  readonly valid_until: string | null
  readonly confidence: number | null
  readonly metadata: string
  readonly agent_id: string | null
  readonly run_id: string | null
  readonly project_id: string | null
  readonly superseded_by: string | null
}

/** A fact's metadata column (always a JSON object as written here); anything else reads as no metadata. */
export const factMetadata = (row: Pick<FactRow, "metadata">): Record<string, unknown> => {
  const parsed: unknown = JSON.parse(row.metadata)
  return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? parsed as Record<string, unknown> : {}
}

/** Narrowing scope: a row stamped with another value is excluded; an unstamped row matches. */
export interface ScopeFilter {
  readonly agent_id: string | null
  readonly run_id: string | null
  readonly project_id: string | null
}

/** The scope keys a turn or fact is stamped with when it is written. */
export type TurnScope = ScopeFilter

/** No scope key set: a request that does not narrow, or a change that is not one scope's (a whole user's, a profile's). */
export const UNSCOPED: ScopeFilter = { agent_id: null, run_id: null, project_id: null }

/** A row's own scope stamps. */
export const scopeOf = (row: ScopeFilter): ScopeFilter => ({ agent_id: row.agent_id, run_id: row.run_id, project_id: row.project_id })

/** `scope`'s keys, and `fallback`'s where `scope` sets none: visible only where both are. */
export const scopeOrElse = (scope: ScopeFilter, fallback: ScopeFilter): ScopeFilter => ({
  agent_id: scope.agent_id ?? fallback.agent_id,
  run_id: scope.run_id ?? fallback.run_id,
  project_id: scope.project_id ?? fallback.project_id
})

/** The keys that narrow a request's scope below its user. */
export const SCOPE_KEYS = ["agent_id", "run_id", "project_id"] as const

/** A fact stamped with another value than the requested scope is outside it; an unstamped one is inside. */
export const inScope = (row: ScopeFilter, scope: ScopeFilter) =>
  SCOPE_KEYS.every((key) => scope[key] === null || row[key] === null || row[key] === scope[key])

/** A raw conversation turn, with its session's time. */
export interface TurnRow {
  readonly seq: number
  readonly turn_id: string
  readonly session_id: string
  readonly position: number
  readonly role: string
  readonly content: string
  readonly agent_id: string | null
  readonly run_id: string | null
  readonly project_id: string | null
  readonly session_time: string | null
}

/**
 * A turn's own columns out of a row read with more (its score, its rank). Copied field by field:
 * V8 copies a rest pattern (`{ score, ...row }`) several times slower, which counted over the
 * hundreds of turns a context block reads.
 */
export const turnRow = (row: TurnRow): TurnRow => ({
  seq: row.seq,
  turn_id: row.turn_id,
  session_id: row.session_id,
  position: row.position,
  role: row.role,
  content: row.content,
  agent_id: row.agent_id,
  run_id: row.run_id,
  project_id: row.project_id,
  session_time: row.session_time
})

/** A row and its bm25 score in the index that found it (higher is better). */
export interface Scored<Row> {
  readonly row: Row
  readonly score: number
}

/** A turn a fact was taken from. */
export interface FactSource {
  readonly fact_id: string
  readonly span_id: string
  readonly turn_id: string
  readonly session_id: string
  readonly role: string
  readonly content: string
  readonly session_time: string | null
}

/** An entity a fact names, with its role in it. */
export interface FactRole {
  readonly fact_id: string
  readonly role: string
  readonly name: string
}

/** The turns and entity roles of facts, for their cards and evidence. */
export interface Provenance {
  readonly sources: ReadonlyArray<FactSource>
  readonly roles: ReadonlyArray<FactRole>
}

/** An edge with what its destination is: only fact endpoints are walked on and shown as nodes. */
export interface EdgeRow {
  readonly edge_id: string
  readonly src_fact_id: string
  readonly dst_id: string
  readonly edge_type: string
  readonly predicate: string | null
  readonly confidence: number | null
  readonly metadata: string
  readonly created_at: number
  readonly dst_kind: "fact" | "entity" | "other"
}

export type EventType = "memory_add" | "memory_supersede" | "memory_delete"

/** An audit event about to be written with the change it records. */
export interface NewEvent {
  readonly type: EventType
  readonly memoryId: string | null
  readonly sessionId: string | null
  readonly reason: string
  readonly details: Record<string, unknown>
  /**
   * The scope of the write that caused it: a new memory's stamps; for a change to an existing
   * memory, with that memory's stamps where the write sets none (`scopeOrElse`); none for a change
   * of a whole user or an entity's profile.
   */
  readonly scope: ScopeFilter
}

export interface EventRow {
  readonly event_id: string
  readonly ts: string
  readonly type: string
  readonly memory_id: string | null
  readonly session_id: string | null
  readonly reason: string | null
  readonly details: string
  readonly agent_id: string | null
  readonly run_id: string | null
  readonly project_id: string | null
}

/** The embedding model and dimension of a store's vectors; none before its first vector. */
export interface VectorSpace {
  readonly model: string
  readonly dimensions: number
}

export type PriorityOrder = "by_staleness" | "by_fact_count_delta" | "fifo"

/** An entity whose profile needs rebuilding, with its current profile memory if it has one. */
export interface StaleEntity {
  readonly entity_id: string
  readonly name: string
  readonly profile: string | null
}

/** Rows of a listing, with how many there are in all. */
export interface Page<Row> {
  readonly rows: ReadonlyArray<Row>
  readonly total: number
}

export interface JobRow {
  readonly job_id: string
  readonly kind: string
  readonly status: string
  readonly user_id: string
  readonly result: string | null
  readonly error: string | null
  readonly created_at: string
  readonly finished_at: string | null
}

/** A worker's hold on a job it claimed: its process, and which claim of the job it is. */
export interface JobLease {
  readonly owner: string
  readonly attempt: number
}

export interface ClaimedJob {
  readonly job_id: string
  readonly kind: string
  readonly payload: string
  /** How many times the job was claimed, this claim included: more than one after its worker was lost. */
  readonly attempts: number
}

export interface ApiKeyRow {
  readonly id: string
  readonly name: string
  readonly prefix: string
  readonly created_at: string
  readonly last_used_at: string | null
  readonly revoked_at: string | null
}

export interface RequestLogRow {
  readonly request_id: string
  readonly method: string
  readonly route: string
  readonly status_code: number
  readonly latency_ms: number
  readonly key_name: string | null
  /** The named key's id: tells a named key from the service key or an anonymous caller, and same-named keys apart. */
  readonly key_id: string | null
  readonly created_at: string
}

/** Starts refused because another process held the deployment's lock. */
export interface LockContention {
  readonly count: number
  readonly last: string | null
}

/** A fact about to be written, with its provenance and the entities it involves. */
export interface NewFact {
  readonly factId: string
  readonly content: string
  readonly kind: string
  /** The session it was learned in; none for what the store derives itself (profiles). */
  readonly sessionId: string | null
  readonly occurredAt: string | null
  readonly validFrom: string | null
  readonly confidence: number
  readonly metadata: Record<string, unknown>
  readonly scope: TurnScope
  readonly spanIds: ReadonlyArray<string>
  readonly entities: ReadonlyArray<{ readonly name: string; readonly role: string }>
  readonly predicate: string
}

/** What closes a fact: the version that replaces it, and since when. */
export interface Replacement {
  readonly newFactId: string
  /** When the old fact stopped being true: its valid_until. */
  readonly validUntil: string | null
  readonly now: string
  readonly epochSeconds: number
}
