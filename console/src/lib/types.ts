/** The service's responses, as the console reads them (the fields it shows). */

export type Json = Record<string, unknown>

export interface Health {
  readonly status: "ok"
  readonly version: string
  readonly schema_version: number
  readonly auth: "enabled" | "disabled"
}

export interface ConfigView {
  readonly data_root: string
  readonly storage_backend: "sqlite" | "postgres"
  readonly database_pool_max: number | null
  readonly store_cache_max: number
  readonly auth: "enabled" | "disabled"
  readonly api_key_set: boolean
  readonly named_keys_active: number
  readonly llm_provider: string
  readonly llm_model: string | null
  readonly llm_api_key_set: boolean
  readonly llm_base_url: string | null
  readonly embed_provider: string | null
  readonly embed_model: string | null
  readonly embed_dimensions: number | null
  readonly embed_state: "ready" | "model_missing" | "model_unloadable" | null
  readonly embed_unavailable: string | null
  readonly cors_origins: ReadonlyArray<string>
  readonly allow_purge: boolean
  readonly max_body_bytes: number
  readonly request_log_max: number
  readonly job_retention_max: number
  readonly job_lease_seconds: number
  readonly workers: number
  readonly lock_contention_count: number
  readonly lock_contention_last: string | null
}

export interface StatsView {
  readonly users: number
  readonly stores_bytes: number
  readonly largest_stores: ReadonlyArray<{ readonly user_id: string; readonly bytes: number }>
  readonly jobs_by_status: Readonly<Record<string, number>>
  readonly requests_logged: number
  readonly control_db_bytes: number
  readonly memories_by_status: Readonly<Record<string, number>>
  readonly open_stores: number
}

export interface Memory {
  readonly id: string
  readonly user_id: string
  readonly agent_id: string | null
  readonly run_id: string | null
  readonly project_id: string | null
  readonly content: string
  readonly kind: string | null
  readonly status: string | null
  readonly session_id: string | null
  readonly occurred_at: string | null
  readonly valid_from: string | null
  readonly valid_until: string | null
  readonly confidence: number | null
  readonly metadata: Json
}

export interface MemoryList {
  readonly memories: ReadonlyArray<Memory>
  readonly total: number
  readonly offset: number
  readonly limit: number
}

export interface DeleteResult {
  readonly id: string
  readonly deleted: boolean
  readonly already_deleted: boolean
  readonly purged: boolean
  readonly cascaded: Readonly<Record<string, number>>
}

export interface MemoryEvent {
  readonly event_id: string
  readonly ts: string
  readonly type: "memory_add" | "memory_supersede" | "memory_delete"
  readonly memory_id: string | null
  readonly session_id: string | null
  readonly reason: string | null
  readonly details: Json
}

export interface EventList {
  readonly events: ReadonlyArray<MemoryEvent>
  readonly total: number
}

/** A memory as the graph routes show it, with where it came from. */
export interface FactCard {
  readonly fact_id: string
  readonly content: string
  readonly predicate_raw: string
  readonly status: string
  readonly version_status: string
  readonly superseded_by: string | null
  readonly source_span_ids: ReadonlyArray<string>
  readonly session_id: string
  readonly turn_id: string
  readonly valid_from: string | null
  readonly valid_until: string | null
  readonly entity_roles: Readonly<Record<string, ReadonlyArray<string>>>
}

export interface Edge {
  readonly src_fact_id: string
  readonly dst_id: string
  readonly edge_type: string
}

export interface ExploreResult {
  readonly nodes: ReadonlyArray<FactCard>
  readonly edges: ReadonlyArray<Edge>
}

export interface Degraded {
  readonly code: string
  readonly message: string
  readonly details: Json
}

export interface SearchHit {
  readonly id: string
  readonly content: string
  readonly score: number | null
  readonly session_id: string | null
  readonly occurred_at: string | null
  readonly metadata: Json
}

export interface SearchResponse {
  readonly query: string
  readonly hits: ReadonlyArray<SearchHit>
  readonly degraded: ReadonlyArray<Degraded>
}

export interface ContextResponse {
  readonly text: string
  readonly citations: ReadonlyArray<string>
  readonly evidence: ReadonlyArray<Json>
  readonly degraded: ReadonlyArray<Degraded>
}

/** What one call of POST /v1/maintenance/embed did. */
export interface EmbedResult {
  readonly user_id: string | null
  readonly status: "ok" | "already_running"
  readonly model: string
  readonly dimensions: number
  readonly embedded: number
  readonly switched: number
  readonly cancelled: boolean
  readonly remaining: number
}

export type JobStatus = "pending" | "running" | "succeeded" | "failed"

export interface Job {
  readonly job_id: string
  readonly status: JobStatus
  readonly kind: string
  readonly user_id: string
  readonly created_at: string
  readonly finished_at: string | null
  readonly result: Json | null
  readonly error: string | null
}

export interface ApiKeySummary {
  readonly id: string
  readonly name: string
  readonly prefix: string
  readonly created_at: string
  readonly last_used_at: string | null
  readonly revoked_at: string | null
  readonly revoked: boolean
}

export interface ApiKeyList {
  readonly keys: ReadonlyArray<ApiKeySummary>
  readonly total: number
}

export interface CreatedApiKey {
  readonly key: ApiKeySummary
  readonly api_key: string
  readonly warning: string
}

export interface RequestLogEntry {
  readonly request_id: string
  readonly method: string
  readonly route: string
  readonly status_code: number
  readonly latency_ms: number
  readonly key_name: string | null
  readonly created_at: string
}

export interface RequestLogPage {
  readonly requests: ReadonlyArray<RequestLogEntry>
  readonly total: number
  readonly offset: number
  readonly limit: number
}

export interface RouteLatency {
  readonly count: number
  readonly min: number
  readonly p50: number
  readonly p95: number
  readonly p99: number
  readonly max: number
}

export interface RouteMetrics {
  readonly routes: Readonly<Record<string, RouteLatency>>
}

export interface TokenCounts {
  readonly calls: number
  readonly calls_with_usage: number
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly total_tokens: number
  readonly cached_input_tokens: number
  readonly cache_creation_input_tokens: number
}

export interface UsageSummary extends TokenCounts {
  readonly by_phase: Readonly<Record<string, TokenCounts>>
  readonly served_models: ReadonlyArray<string>
}

export interface UsageReport {
  readonly by_operation: Readonly<Record<string, UsageSummary>>
  /** `{}` until the first LLM call. */
  readonly total: UsageSummary | Readonly<Record<string, never>>
}
