import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { isReservedActorName, RESERVED_ACTOR_NAMES } from "../domain/actors.js"
import { Authentication } from "./Authentication.js"
import { ScopeKeysInQuery } from "./ScopeKeysInQuery.js"
import { NotFoundWire, StoreUnavailableWire } from "./errors.js"
import { Text } from "./text.js"
import { pagingParams, QueryBoolean } from "./validation.js"

export class ConfigView extends Schema.Class<ConfigView>("ConfigView")({
  data_root: Schema.String,
  /** Where users' data and the control plane live: the data root, or the PostgreSQL database (never its URL). */
  storage_backend: Schema.Literal("sqlite", "postgres"),
  database_pool_max: Schema.NullOr(Schema.Int),
  store_cache_max: Schema.Int,
  auth: Schema.Literal("enabled", "disabled"),
  api_key_set: Schema.Boolean,
  named_keys_active: Schema.Int,
  llm_provider: Schema.String,
  llm_model: Schema.NullOr(Schema.String),
  llm_api_key_set: Schema.Boolean,
  llm_base_url: Schema.NullOr(Schema.String),
  embed_provider: Schema.NullOr(Schema.String),
  embed_model: Schema.NullOr(Schema.String),
  embed_dimensions: Schema.NullOr(Schema.Int),
  /** The local model's state with the local provider; null with the others. */
  embed_state: Schema.NullOr(Schema.Literal("ready", "model_missing", "model_unloadable")),
  /** Why no embedder runs, and what to do about it; null while one runs. */
  embed_unavailable: Schema.NullOr(Schema.String),
  cors_origins: Schema.Array(Schema.String),
  allow_purge: Schema.Boolean,
  max_body_bytes: Schema.Int,
  request_log_max: Schema.Int,
  job_retention_max: Schema.Int,
  job_lease_seconds: Schema.Int,
  /** Where changes are posted, without credentials, query or fragment; none when webhooks are off. */
  webhook_url: Schema.NullOr(Schema.String),
  webhook_secret_set: Schema.Boolean,
  webhook_retention_max: Schema.NullOr(Schema.Int),
  workers: Schema.Literal(1),
  lock_contention_count: Schema.Int,
  lock_contention_last: Schema.NullOr(Schema.String)
}) {}

export class ApiKeySummary extends Schema.Class<ApiKeySummary>("ApiKeySummary")({
  id: Schema.String,
  name: Schema.String,
  prefix: Schema.String,
  created_at: Schema.String,
  last_used_at: Schema.NullOr(Schema.String),
  revoked_at: Schema.NullOr(Schema.String),
  revoked: Schema.Boolean
}) {}

export class ApiKeyList extends Schema.Class<ApiKeyList>("ApiKeyList")({
  keys: Schema.Array(ApiKeySummary),
  total: Schema.Int
}) {}

export class CreatedApiKey extends Schema.Class<CreatedApiKey>("CreatedApiKey")({
  key: ApiKeySummary,
  api_key: Schema.String,
  warning: Schema.String
}) {}

/** A key's name, never a reserved actor's: a key's requests must not read as the service key's or an anonymous caller's. */
const KeyName = Text.pipe(
  Schema.minLength(1),
  Schema.maxLength(64),
  Schema.filter((name) => !isReservedActorName(name), {
    message: () => `The name of a reserved actor (${RESERVED_ACTOR_NAMES.join(", ")}, in any case) cannot name a key`
  })
)

/** Unknown keys are ignored here, as the reference service does for this one body. */
export const CreateApiKeyRequest = Schema.Struct({ name: KeyName })

export const RequestLogQuery = Schema.Struct(pagingParams(1000, 100))

export class RequestLogEntry extends Schema.Class<RequestLogEntry>("RequestLogEntry")({
  request_id: Schema.String,
  method: Schema.String,
  route: Schema.String,
  status_code: Schema.Int,
  latency_ms: Schema.Number,
  key_name: Schema.NullOr(Schema.String),
  /** The named key's id; null for the service key (`bootstrap`), an anonymous caller, or when no key was checked. */
  key_id: Schema.NullOr(Schema.String),
  created_at: Schema.String
}) {}

export class RequestLogPage extends Schema.Class<RequestLogPage>("RequestLogPage")({
  requests: Schema.Array(RequestLogEntry),
  total: Schema.Int,
  offset: Schema.Int,
  limit: Schema.Int
}) {}

const Counts = Schema.Record({ key: Schema.String, value: Schema.Int })

export class StatsView extends Schema.Class<StatsView>("StatsView")({
  users: Schema.Int,
  stores_bytes: Schema.Int,
  largest_stores: Schema.Array(Schema.Struct({ user_id: Schema.String, bytes: Schema.Int })),
  jobs_by_status: Counts,
  requests_logged: Schema.Int,
  control_db_bytes: Schema.Int,
  memories_by_status: Counts,
  open_stores: Schema.Int,
  /**
   * Webhook deliveries since the process started (delivered, failed, dropped) and what waits
   * (retrying, pending); whether this process delivers (enabled), whether webhooks are on for the
   * database (database_enabled: every process's writes enter the outboxes), and whether the two differ.
   */
  webhooks: Schema.Struct({
    enabled: Schema.Boolean,
    database_enabled: Schema.Boolean,
    mismatch: Schema.Boolean,
    delivered: Schema.Int,
    failed: Schema.Int,
    retrying: Schema.Int,
    pending: Schema.Int,
    dropped: Schema.Int
  })
}) {}

export class AdminApi extends HttpApiGroup.make("admin")
  .add(
    HttpApiEndpoint.get("config", "/v1/admin/config")
      .addSuccess(ConfigView)
      .annotate(OpenApi.Summary, "Effective configuration; secrets only as set / not set")
  )
  .add(
    HttpApiEndpoint.get("listKeys", "/v1/admin/keys")
      .setUrlParams(Schema.Struct({
        include_revoked: Schema.optionalWith(QueryBoolean, { default: () => true })
      }))
      .addSuccess(ApiKeyList)
      .annotate(OpenApi.Summary, "Named API keys, oldest first; never the key itself")
  )
  .add(
    HttpApiEndpoint.post("createKey", "/v1/admin/keys")
      .setPayload(CreateApiKeyRequest)
      .addSuccess(CreatedApiKey, { status: 201 })
      .annotate(OpenApi.Summary, "Mint a named key; the plaintext is returned this once")
  )
  .add(
    HttpApiEndpoint.del("revokeKey", "/v1/admin/keys/:key_id")
      .setPath(Schema.Struct({ key_id: Text }))
      .addSuccess(ApiKeySummary)
      .addError(NotFoundWire)
      .annotate(OpenApi.Summary, "Revoke a named key (idempotent; the row is kept)")
  )
  .add(
    HttpApiEndpoint.get("requests", "/v1/admin/requests")
      .setUrlParams(RequestLogQuery)
      .addSuccess(RequestLogPage)
      .annotate(OpenApi.Summary, "The rolling request log, newest first: route templates, status, latency, key name; never bodies")
  )
  .add(
    HttpApiEndpoint.get("stats", "/v1/admin/stats")
      .addSuccess(StatsView)
      .annotate(OpenApi.Summary, "Disk and workload shape: users, store sizes, jobs by status, memories by status, open stores")
  )
  .addError(StoreUnavailableWire)
  .middleware(ScopeKeysInQuery)
  .middleware(Authentication) {}

