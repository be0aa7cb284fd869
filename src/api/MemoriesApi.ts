import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { JSONSchema, Schema } from "effect"
import { Authentication } from "./Authentication.js"
import { ScopeKeysInQuery } from "./ScopeKeysInQuery.js"
import {
  ConfigInvalidWire,
  ConflictWire,
  ForbiddenWire,
  IngestFailedWire,
  InvalidScopeWire,
  NotFoundWire,
  NotImplementedWire,
  ProviderFailureWire,
  StoreUnavailableWire,
  UnprocessableWire
} from "./errors.js"
import { boundedText, Content, Text } from "./text.js"
import { forbidExtra, pagingParams, QueryBoolean } from "./validation.js"

export const Role = Schema.Literal("user", "assistant", "system")

export const Message = Schema.Struct({
  role: Schema.optionalWith(Role, { default: () => "user" as const }),
  content: Content
}).annotations(forbidExtra)

const scopeKeyDescription = (key: string) =>
  `Scope key: narrows to what is stamped with this ${key} or with none ("" means unset), so a memory stamped with another is 404, left out and never changed; a write stamps it on what it stores. Routes acting on a whole user or on entity profiles refuse it (501 not_implemented). See docs/scope.md.`

const scopeKeyValue = Text.pipe(Schema.maxLength(128))
const scopeKey = (key: string) => Schema.optional(Schema.NullOr(scopeKeyValue).annotations({ description: scopeKeyDescription(key) }))
const scopeKeyParam = (key: string) => Schema.optional(scopeKeyValue.annotations({ description: scopeKeyDescription(key) }))

/** The scope every request carries: a user, optionally narrowed to an agent, run or project. */
export const ScopeFields = {
  user_id: boundedText(1, 128),
  agent_id: scopeKey("agent_id"),
  run_id: scopeKey("run_id"),
  project_id: scopeKey("project_id")
}

/** The scope keys as query parameters, for a route whose body names the user. */
export const ScopeKeysQuery = {
  agent_id: scopeKeyParam("agent_id"),
  run_id: scopeKeyParam("run_id"),
  project_id: scopeKeyParam("project_id")
}

/** The scope as query parameters (GET and DELETE routes). */
export const ScopeQuery = { user_id: boundedText(1, 128), ...ScopeKeysQuery }

/** A memory's id in a path. */
const MemoryIdPath = Schema.Struct({ memory_id: Text })

/**
 * A session's id, as the client chooses it. Its length is bounded because it is part of keys
 * PostgreSQL indexes in a B-tree (turn and span ids are made from it), whose entries cannot pass
 * 2704 bytes: 512 UTF-16 units are at most 1536 bytes of UTF-8.
 */
export const SessionId = Text.pipe(Schema.maxLength(512))

export const SessionTime = Schema.NullOr(Schema.Union(Text, Schema.Number))

export const AddMemoriesRequest = Schema.Struct({
  ...ScopeFields,
  messages: Schema.Array(Message).pipe(Schema.minItems(1)),
  session_id: Schema.optional(Schema.NullOr(SessionId)),
  session_time: Schema.optional(SessionTime),
  infer: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  async_mode: Schema.optionalWith(Schema.Boolean, { default: () => true })
}).annotations(forbidExtra)
export type AddMemoriesRequest = typeof AddMemoriesRequest.Type

export class AddMemoriesResult extends Schema.Class<AddMemoriesResult>("AddMemoriesResult")({
  session_id: Schema.String,
  facts_extracted: Schema.Int,
  spans_written: Schema.Int,
  turns_written: Schema.Int
}) {}

export class JobAccepted extends Schema.Class<JobAccepted>("JobAccepted")({
  job_id: Schema.String,
  status: Schema.Literal("pending"),
  session_id: Schema.String
}) {}

export class Memory extends Schema.Class<Memory>("Memory")({
  id: Schema.String,
  user_id: Schema.String,
  agent_id: Schema.NullOr(Schema.String),
  run_id: Schema.NullOr(Schema.String),
  project_id: Schema.NullOr(Schema.String),
  content: Schema.String,
  kind: Schema.NullOr(Schema.String),
  status: Schema.NullOr(Schema.String),
  session_id: Schema.NullOr(Schema.String),
  occurred_at: Schema.NullOr(Schema.String),
  valid_from: Schema.NullOr(Schema.String),
  valid_until: Schema.NullOr(Schema.String),
  confidence: Schema.NullOr(Schema.Number),
  metadata: Schema.Record({ key: Schema.String, value: Schema.Unknown })
}) {}

/** One session of a batch: the fields of a single add that describe a conversation. */
export const BatchSession = Schema.Struct({
  messages: Schema.Array(Message).pipe(Schema.minItems(1)),
  session_id: Schema.optional(Schema.NullOr(SessionId)),
  session_time: Schema.optional(SessionTime)
}).annotations(forbidExtra)
export type BatchSession = typeof BatchSession.Type

export const BATCH_MAX_SESSIONS = 500

export const BatchAddRequest = Schema.Struct({
  ...ScopeFields,
  // Each session is validated on its own, so one malformed session fails alone, as an item.
  sessions: Schema.Array(Schema.Unknown.annotations({ jsonSchema: JSONSchema.make(BatchSession) })).pipe(
    Schema.minItems(1),
    Schema.maxItems(BATCH_MAX_SESSIONS)
  ),
  infer: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  async_mode: Schema.optionalWith(Schema.Boolean, { default: () => true })
}).annotations(forbidExtra)
export type BatchAddRequest = typeof BatchAddRequest.Type

export class BatchItemResult extends Schema.Class<BatchItemResult>("BatchItemResult")({
  index: Schema.Int,
  ok: Schema.Boolean,
  session_id: Schema.NullOr(Schema.String),
  facts_extracted: Schema.Int,
  /** `"<code>: <message>"` when the session failed. */
  error: Schema.NullOr(Schema.String)
}) {}

export class BatchAddResult extends Schema.Class<BatchAddResult>("BatchAddResult")({
  succeeded: Schema.Int,
  failed: Schema.Int,
  results: Schema.Array(BatchItemResult)
}) {}

export class MemoryList extends Schema.Class<MemoryList>("MemoryList")({
  memories: Schema.Array(Memory),
  total: Schema.Int,
  offset: Schema.Int,
  limit: Schema.Int
}) {}

export const ListMemoriesQuery = Schema.Struct({ ...ScopeQuery, ...pagingParams(500) })

/** The query of both deletes: the scope, and `purge` (off by default: archive). */
const DeleteQuery = Schema.Struct({ ...ScopeQuery, purge: Schema.optionalWith(QueryBoolean, { default: () => false }) })

export class DeleteResult extends Schema.Class<DeleteResult>("DeleteResult")({
  id: Schema.String,
  deleted: Schema.Boolean,
  already_deleted: Schema.Boolean,
  purged: Schema.Boolean,
  cascaded: Schema.Record({ key: Schema.String, value: Schema.Int }).annotations({
    description: "Archive: {}. Purge: counts of what went with the memory: vectors, fact_entity_roles, fact_edges, fact_sources, versions (the memory rows erased: the memory, the versions it superseded, the profiles citing them), turns_redacted, and under the reference service's names fact_events (= versions) and chroma_vectors (= vectors); all 0 for an unknown id."
  })
}) {}

export const UpdateMemoryRequest = Schema.Struct({
  ...ScopeFields,
  content: Content.pipe(Schema.minLength(1)),
  session_id: Schema.optional(Schema.NullOr(SessionId)),
  session_time: Schema.optional(SessionTime)
}).annotations(forbidExtra)
export type UpdateMemoryRequest = typeof UpdateMemoryRequest.Type

export class UpdateResult extends Schema.Class<UpdateResult>("UpdateResult")({
  memory: Memory,
  superseded_id: Schema.String,
  valid_until: Schema.NullOr(Schema.String)
}) {}

export class UserDeleteResult extends Schema.Class<UserDeleteResult>("UserDeleteResult")({
  user_id: Schema.String,
  deleted: Schema.Boolean,
  purged: Schema.Boolean,
  archived: Schema.Int
}) {}

export class MemoriesApi extends HttpApiGroup.make("memories")
  .add(
    HttpApiEndpoint.post("add", "/v1/memories")
      .setPayload(AddMemoriesRequest)
      .addSuccess(AddMemoriesResult)
      .addSuccess(JobAccepted, { status: 202 })
      .addError(InvalidScopeWire)
      .addError(ConfigInvalidWire)
      .addError(IngestFailedWire)
      .addError(ProviderFailureWire)
      .addError(StoreUnavailableWire)
      .annotate(OpenApi.Summary, "Ingest a conversation: a job to poll (202), or the counts with async_mode false")
      .annotate(
        OpenApi.Description,
        "Ingest a conversation. async_mode (default true) answers 202 with a job to poll; false answers 200 with counts. infer=true (default) extracts facts with the configured LLM and reconciles them with current memories (add, supersede, merge); infer=false stores the turns verbatim and needs no LLM."
      )
  )
  .add(
    HttpApiEndpoint.post("addBatch", "/v1/memories/batch")
      .setPayload(BatchAddRequest)
      .addSuccess(BatchAddResult)
      .addSuccess(JobAccepted, { status: 202 })
      .addError(InvalidScopeWire)
      .addError(ConfigInvalidWire)
      .addError(StoreUnavailableWire)
      .annotate(OpenApi.Summary, "Ingest 1..500 sessions of one user, each an item of its own in the report")
      .annotate(
        OpenApi.Description,
        "Ingest 1..500 sessions of one user. Each session is attempted on its own: a session that fails validation or extraction is a failed item (error \"<code>: <message>\"), never the whole batch. async_mode (default true) answers 202 with an ingest_batch job whose result is the per-item report."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/v1/memories")
      .setUrlParams(ListMemoriesQuery)
      .addSuccess(MemoryList)
      .addError(InvalidScopeWire)
      .addError(StoreUnavailableWire)
      .annotate(OpenApi.Summary, "Current memories of a user, oldest first, with paging; scope keys narrow")
  )
  .add(
    HttpApiEndpoint.get("get", "/v1/memories/:memory_id")
      .setPath(MemoryIdPath)
      .setUrlParams(Schema.Struct(ScopeQuery))
      .addSuccess(Memory)
      .addError(NotFoundWire)
      .addError(InvalidScopeWire)
      .addError(StoreUnavailableWire)
      .annotate(OpenApi.Summary, "One memory; superseded versions stay readable, archived ones are 404")
  )
  .add(
    HttpApiEndpoint.patch("update", "/v1/memories/:memory_id")
      .setPath(MemoryIdPath)
      .setUrlParams(Schema.Struct(ScopeKeysQuery))
      .setPayload(UpdateMemoryRequest)
      .addSuccess(UpdateResult)
      .addError(NotFoundWire)
      .addError(ConflictWire)
      .addError(UnprocessableWire)
      .addError(InvalidScopeWire)
      .addError(IngestFailedWire)
      .addError(ConfigInvalidWire)
      .addError(ProviderFailureWire)
      .addError(StoreUnavailableWire)
      .annotate(OpenApi.Summary, "Correct a memory: a new version supersedes it, nothing is rewritten in place")
      .annotate(
        OpenApi.Description,
        "Correct a memory by superseding it: with an LLM configured the content goes through extraction (the newest fact extracted is the new version, 422 when none is), otherwise it is stored verbatim; a new version is written and the old one closed with valid_until, linked by SUPERSEDES; nothing is rewritten in place. An archived target is 404, a superseded one 409. Scope keys narrow, given in the body or in the query (or both: the memory must be within each); a memory stamped outside them is 404."
      )
  )
  .add(
    HttpApiEndpoint.del("delete", "/v1/memories/:memory_id")
      .setPath(MemoryIdPath)
      .setUrlParams(DeleteQuery)
      .addSuccess(DeleteResult)
      .addError(NotFoundWire)
      .addError(ForbiddenWire)
      .addError(InvalidScopeWire)
      .addError(StoreUnavailableWire)
      .annotate(OpenApi.Summary, "Archive a memory, or erase it with purge=true")
      .annotate(
        OpenApi.Description,
        "Archive a memory (idempotent; it leaves list, get, search and context, the record stays). purge=true erases it with its roles, edges and index rows, only when SERVICE_ALLOW_PURGE is on (else 403). An unknown id is 200 with deleted false. Scope keys narrow: with any of them set, a memory stamped outside the scope, or none by that id, is 404 and nothing changes."
      )
  )
  .add(
    HttpApiEndpoint.del("deleteUser", "/v1/memories")
      .setUrlParams(DeleteQuery)
      .addSuccess(UserDeleteResult)
      .addError(ForbiddenWire)
      .addError(NotImplementedWire)
      .addError(InvalidScopeWire)
      .addError(StoreUnavailableWire)
      .annotate(OpenApi.Summary, "Archive all of a user's memories, or erase the user's data with purge=true")
      .annotate(
        OpenApi.Description,
        "All of a user's memories: archived by default (one audit event); purge=true erases the user's store directory, only when SERVICE_ALLOW_PURGE is on. Jobs, keys and the request log stay in the control plane. Scope keys are refused (501): this acts on the whole user."
      )
  )
  .middleware(ScopeKeysInQuery)
  .middleware(Authentication) {}
