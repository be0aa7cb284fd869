import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { isReservedActorName, RESERVED_ACTOR_NAMES } from "../domain/actors.js"
import { Authentication } from "./Authentication.js"
import { ScopeKeysInQuery } from "./ScopeKeysInQuery.js"
import { NotFoundWire, StoreUnavailableWire } from "./errors.js"
import { limitParam, offsetParam, PageFields, UserIdEcho, utcTime, utcTimeOrNull } from "./fields.js"
import { Text } from "./text.js"
import { QueryBoolean } from "./validation.js"

/** A configuration field's description: what it is, and the variable that sets it. */
const setting = (name: string, what: string) => ({ description: `${what} (${name}).` })

export class ConfigView extends Schema.Class<ConfigView>("ConfigView")({
  data_root: Schema.String.annotations(setting("SERVICE_DATA_ROOT", "The directory of the per-user stores and the control plane, as an absolute path; unused on PostgreSQL")),
  storage_backend: Schema.Literal("sqlite", "postgres").annotations({
    description: "Where users' data and the control plane live: sqlite (files under the data root) or postgres (the database of SERVICE_DATABASE_URL, whose URL is never shown)."
  }),
  database_pool_max: Schema.NullOr(Schema.Int).annotations(setting("SERVICE_DATABASE_POOL_MAX", "Most connections opened to PostgreSQL; null on SQLite")),
  store_cache_max: Schema.Int.annotations(setting("SERVICE_STORE_CACHE_MAX", "Most per-user stores open at once, least recently used closed first")),
  auth: Schema.Literal("enabled", "disabled").annotations({ description: "Whether requests need a key: disabled only when SERVICE_AUTH_DISABLED is set." }),
  api_key_set: Schema.Boolean.annotations(setting("SERVICE_API_KEY", "Whether the shared key is set; the key itself is never shown")),
  named_keys_active: Schema.Int.annotations({ description: "Named keys not revoked." }),
  llm_provider: Schema.String.annotations(setting("SERVICE_LLM_PROVIDER", "The LLM provider: openai, anthropic, gemini or ollama")),
  llm_model: Schema.NullOr(Schema.String).annotations(setting("SERVICE_LLM_MODEL", "The chat model; null: the provider's default")),
  llm_api_key_set: Schema.Boolean.annotations(setting("SERVICE_LLM_API_KEY", "Whether the provider credential is set")),
  llm_base_url: Schema.NullOr(Schema.String).annotations(setting("SERVICE_LLM_BASE_URL", "The provider endpoint; null: the provider's public one")),
  embed_provider: Schema.NullOr(Schema.String).annotations({
    description: "The provider embeddings go through: SERVICE_EMBED_PROVIDER, else the LLM provider's; null when none is configured (the vector legs are then degraded)."
  }),
  embed_model: Schema.NullOr(Schema.String).annotations({ description: "The embedding model in use; null when no embedder is configured." }),
  embed_dimensions: Schema.NullOr(Schema.Int).annotations(setting("SERVICE_EMBED_DIMENSIONS", "The vector size asked of the embedder; null: the model's own")),
  embed_state: Schema.NullOr(Schema.Literal("ready", "model_missing", "model_unloadable")).annotations({
    description: "With the local embedding provider, whether its model is loaded, missing or present but not loadable; null with the other providers."
  }),
  embed_unavailable: Schema.NullOr(Schema.String).annotations({
    description: "Why no embedder runs and what to do about it (for a missing local model, the command that pulls it); null while one runs."
  }),
  cors_origins: Schema.Array(Schema.String).annotations(setting("SERVICE_CORS_ORIGINS", "The exact origins a browser may call from; [] when CORS is off")),
  allow_purge: Schema.Boolean.annotations(setting("SERVICE_ALLOW_PURGE", "Whether purge=true is allowed on the delete routes")),
  max_body_bytes: Schema.Int.annotations(setting("SERVICE_MAX_BODY_BYTES", "The largest request body accepted, in bytes (import has its own limit)")),
  request_log_max: Schema.Int.annotations(setting("SERVICE_REQUEST_LOG_MAX", "Rows the request log keeps; 0: it is off")),
  job_retention_max: Schema.Int.annotations(setting("SERVICE_JOB_RETENTION_MAX", "Job records kept, the oldest finished pruned first")),
  job_lease_seconds: Schema.Int.annotations(setting("SERVICE_JOB_LEASE_SECONDS", "A running job's lease in seconds: a job whose process died is resumed once it lapses")),
  webhook_url: Schema.NullOr(Schema.String).annotations(setting("SERVICE_WEBHOOK_URL", "Where memory changes are posted, without credentials, query or fragment; null when webhooks are off")),
  webhook_secret_set: Schema.Boolean.annotations(setting("SERVICE_WEBHOOK_SECRET", "Whether the webhook signing secret is set (required with a URL)")),
  webhook_retention_max: Schema.NullOr(Schema.Int).annotations(setting("SERVICE_WEBHOOK_RETENTION_MAX", "Undelivered changes a user's outbox keeps; null when webhooks are off")),
  workers: Schema.Literal(1).annotations({ description: "Worker processes per service process: always 1." }),
  lock_contention_count: Schema.Int.annotations({ description: "How many times another process was refused this data root (data_root_locked)." }),
  lock_contention_last: utcTimeOrNull("When the last refusal happened", "when none has")
}, { description: "The effective configuration; every secret only as set or not set." }) {}

export class ApiKeySummary extends Schema.Class<ApiKeySummary>("ApiKeySummary")({
  id: Schema.String.annotations({ description: "The key's id (32 hex characters): revoke it by this id." }),
  name: Schema.String.annotations({ description: "The name it was minted with, for attribution (events show key:<name>); names need not be unique." }),
  prefix: Schema.String.annotations({ description: "The key's first characters (sm_ and 6 more), to recognise it; the key itself is never shown again." }),
  created_at: utcTime("When it was minted"),
  last_used_at: utcTimeOrNull("When it last authenticated a request (updated at most once a minute)", "when never used"),
  revoked_at: utcTimeOrNull("When it was revoked", "while it is live"),
  revoked: Schema.Boolean.annotations({ description: "Whether it is revoked: a revoked key is refused like an unknown one (401)." })
}, { description: "A named API key, without the key." }) {}

export class ApiKeyList extends Schema.Class<ApiKeyList>("ApiKeyList")({
  keys: Schema.Array(ApiKeySummary).annotations({ description: "The named keys, oldest first." }),
  total: Schema.Int.annotations({ description: "How many keys are listed." })
}, { description: "The named API keys." }) {}

export class CreatedApiKey extends Schema.Class<CreatedApiKey>("CreatedApiKey")({
  key: ApiKeySummary.annotations({ description: "The new key's record." }),
  api_key: Schema.String.annotations({
    description: "The key itself (sm_ and 43 URL-safe characters), to send as Authorization: Bearer or X-API-Key. Shown this once: only its SHA-256 digest is stored."
  }),
  warning: Schema.String.annotations({ description: "A reminder that the key is not shown again." })
}, { description: "A minted key, with its plaintext this once." }) {}

/** A key's name, never a reserved actor's: a key's requests must not read as the service key's or an anonymous caller's. */
const KeyName = Text.pipe(
  Schema.minLength(1),
  Schema.maxLength(64),
  Schema.filter((name) => !isReservedActorName(name), {
    message: () => `The name of a reserved actor (${RESERVED_ACTOR_NAMES.join(", ")}, in any case) cannot name a key`,
    // No JSON Schema keyword says it; an empty one keeps the field's description in the document.
    jsonSchema: {}
  })
)

/** Unknown keys are ignored here, as the reference service does for this one body. */
export const CreateApiKeyRequest = Schema.Struct({
  name: KeyName.annotations({
    description: "What the key is for, shown with its requests and events: 1–64 characters, not bootstrap, anonymous or mcp (in any case)."
  })
}).annotations({ examples: [{ name: "ingest-bot" }] })

export const RequestLogQuery = Schema.Struct({ offset: offsetParam, limit: limitParam(1000, 100) })

export class RequestLogEntry extends Schema.Class<RequestLogEntry>("RequestLogEntry")({
  request_id: Schema.String.annotations({ description: "The request's id, as its x-request-id header carried it (the client's X-Request-ID, else 16 hex characters)." }),
  method: Schema.String.annotations({ description: "The HTTP method." }),
  route: Schema.String.annotations({ description: "The route template (e.g. /v1/memories/{memory_id}), or the raw path when no route matched; never a query string." }),
  status_code: Schema.Int.annotations({ description: "The status answered." }),
  latency_ms: Schema.Number.annotations({ description: "Time to the response, in milliseconds (as the x-response-time-ms header)." }),
  key_name: Schema.NullOr(Schema.String).annotations({
    description: "Who made it: bootstrap (the shared key), a named key's name, anonymous (auth off); null when no key was accepted."
  }),
  key_id: Schema.NullOr(Schema.String).annotations({
    description: "The named key's id; null for the shared key (bootstrap), an anonymous caller, or when no key was accepted."
  }),
  created_at: utcTime("When it was logged")
}, { description: "One request, without its body, headers or query." }) {}

export class RequestLogPage extends Schema.Class<RequestLogPage>("RequestLogPage")({
  requests: Schema.Array(RequestLogEntry).annotations({ description: "The page's requests, newest first." }),
  ...PageFields
}, { description: "A page of the request log." }) {}

const Counts = (what: string) => Schema.Record({ key: Schema.String, value: Schema.Int }).annotations({ description: what })
const Deliveries = (what: string) => Schema.Int.annotations({ description: `${what}, since the process started.` })
const Waiting = (what: string) => Schema.Int.annotations({ description: `Changes ${what}, now.` })

export class StatsView extends Schema.Class<StatsView>("StatsView")({
  users: Schema.Int.annotations({ description: "Users with data." }),
  stores_bytes: Schema.Int.annotations({ description: "Bytes of every user's data: their store files on SQLite, their rows (vectors included) on PostgreSQL." }),
  largest_stores: Schema.Array(Schema.Struct({
    user_id: UserIdEcho,
    bytes: Schema.Int.annotations({ description: "Bytes of the user's data." })
  }).annotations({ description: "One user's size." })).annotations({ description: "The 10 largest users, largest first." }),
  jobs_by_status: Counts("Jobs kept, by status (pending, running, succeeded, failed); only statuses present."),
  requests_logged: Schema.Int.annotations({ description: "Rows in the request log." }),
  control_db_bytes: Schema.Int.annotations({ description: "Bytes of the control plane: its database files on SQLite, its tables and indexes on PostgreSQL." }),
  memories_by_status: Counts("Memories of every user, by status (active, superseded, archived)."),
  open_stores: Schema.Int.annotations({ description: "Per-user stores open now (at most SERVICE_STORE_CACHE_MAX); 0 on PostgreSQL." }),
  webhooks: Schema.Struct({
    enabled: Schema.Boolean.annotations({ description: "Whether this process delivers webhooks (it has SERVICE_WEBHOOK_URL)." }),
    database_enabled: Schema.Boolean.annotations({ description: "Whether webhooks are on for the deployment: every process's writes enter the outboxes." }),
    mismatch: Schema.Boolean.annotations({ description: "Whether the two above differ (changes pile up, or a process has a URL the deployment does not use)." }),
    delivered: Deliveries("Changes the receiver accepted"),
    failed: Deliveries("Changes the receiver refused"),
    retrying: Waiting("waiting for another attempt after a failed one"),
    pending: Waiting("not yet delivered"),
    dropped: Deliveries("Changes dropped from an outbox past SERVICE_WEBHOOK_RETENTION_MAX")
  }).annotations({ description: "Webhook deliveries: whether they run, and their counts." })
}, { description: "Disk and workload shape of the deployment." }) {}

export class AdminApi extends HttpApiGroup.make("admin")
  .annotate(
    OpenApi.Description,
    "Run the deployment: the effective configuration, named API keys (for attribution: every valid key has the same access), the request log and disk and workload figures."
  )
  .add(
    HttpApiEndpoint.get("config", "/v1/admin/config")
      .addSuccess(ConfigView)
      .annotate(OpenApi.Summary, "Effective configuration; secrets only as set / not set")
      .annotate(
        OpenApi.Description,
        "The configuration this process runs with, from its environment variables. Every secret (the API key, the LLM and embedding credentials, the webhook secret, the database URL) appears only as set or not set, never its value."
      )
  )
  .add(
    HttpApiEndpoint.get("listKeys", "/v1/admin/keys")
      .setUrlParams(Schema.Struct({
        include_revoked: Schema.optionalWith(
          QueryBoolean.annotations({ description: "Whether revoked keys are listed too (default true)." }),
          { default: () => true }
        )
      }))
      .addSuccess(ApiKeyList)
      .annotate(OpenApi.Summary, "Named API keys, oldest first; never the key itself")
      .annotate(
        OpenApi.Description,
        "The named keys, oldest first, revoked ones included unless include_revoked=false. The shared key (SERVICE_API_KEY) is not listed: it has no row."
      )
  )
  .add(
    HttpApiEndpoint.post("createKey", "/v1/admin/keys")
      .setPayload(CreateApiKeyRequest)
      .addSuccess(CreatedApiKey, { status: 201 })
      .annotate(OpenApi.Summary, "Mint a named key; the plaintext is returned this once")
      .annotate(
        OpenApi.Description,
        "Mints a key with a name, for attribution: every valid key has the same access, and users are kept apart by user_id, not by keys. Answers 201 with the key in plaintext this once; only its SHA-256 digest is stored. Unknown fields of the body are ignored."
      )
  )
  .add(
    HttpApiEndpoint.del("revokeKey", "/v1/admin/keys/:key_id")
      .setPath(Schema.Struct({ key_id: Text.annotations({ description: "The key's id, as listed (not the key itself)." }) }))
      .addSuccess(ApiKeySummary)
      .addError(NotFoundWire)
      .annotate(OpenApi.Summary, "Revoke a named key (idempotent; the row is kept)")
      .annotate(
        OpenApi.Description,
        "Revokes a named key: from then on it is refused like an unknown key (401). Idempotent (a repeat keeps the first revoked_at); the row is kept. Any key may revoke any named key, itself included; an unknown id is 404 not_found."
      )
  )
  .add(
    HttpApiEndpoint.get("requests", "/v1/admin/requests")
      .setUrlParams(RequestLogQuery)
      .addSuccess(RequestLogPage)
      .annotate(OpenApi.Summary, "The rolling request log, newest first: route templates, status, latency, key name; never bodies")
      .annotate(
        OpenApi.Description,
        "Every failed request and every successful one except /health and the console's pages, newest first, by route template, with the key that made it; never a body, header or query string. SERVICE_REQUEST_LOG_MAX rows are kept (0: none are written). A request is listed once its response is sent by the replica that served it, by the others within SERVICE_REQUEST_LOG_FLUSH_MS."
      )
  )
  .add(
    HttpApiEndpoint.get("stats", "/v1/admin/stats")
      .addSuccess(StatsView)
      .annotate(OpenApi.Summary, "Disk and workload shape: users, store sizes, jobs by status, memories by status, open stores")
      .annotate(
        OpenApi.Description,
        "Users with data and their sizes (the 10 largest), the control plane's size, jobs and memories by status, open stores, and webhook delivery counts. Walks the data root (or queries the database) on each call."
      )
  )
  .addError(StoreUnavailableWire)
  .middleware(ScopeKeysInQuery)
  .middleware(Authentication) {}

