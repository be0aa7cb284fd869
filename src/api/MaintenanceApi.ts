import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "./Authentication.js"
import { ScopeKeysInQuery } from "./ScopeKeysInQuery.js"
import { InvalidScopeWire, NotImplementedWire, ProviderFailureWire, ServiceUnavailableWire, StoreUnavailableWire } from "./errors.js"
import { ScopeFields } from "./MemoriesApi.js"
import { JobStarted } from "./JobsApi.js"
import { forbidExtra } from "./validation.js"

export const PriorityOrder = Schema.Literal("by_staleness", "by_fact_count_delta", "fifo")

export const DreamRequest = Schema.Struct({
  ...ScopeFields,
  batch_size: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 1000)), { default: () => 50 }),
  /** A soft deadline: the run stops between entities once it has passed; 0 means none. */
  max_processing_time_sec: Schema.optionalWith(Schema.Number.pipe(Schema.between(0, 3600)), { default: () => 0 }),
  priority_order: Schema.optionalWith(PriorityOrder, { default: () => "by_staleness" as const }),
  // The reference names the flag `async`; every other route says `async_mode`: both are read.
  async: Schema.optional(Schema.Boolean),
  async_mode: Schema.optional(Schema.Boolean)
}).annotations(forbidExtra)
export type DreamRequest = typeof DreamRequest.Type

export class DreamResult extends Schema.Class<DreamResult>("DreamResult")({
  user_id: Schema.String,
  status: Schema.Literal("ok", "already_running"),
  entities_processed: Schema.Int,
  profiles_written: Schema.Int,
  profiles_superseded: Schema.Int,
  cancelled: Schema.Boolean,
  /** Entities still waiting for a new profile: repeated runs bring it to 0. */
  remaining_stale: Schema.Int
}) {}

export const EmbedRequest = Schema.Struct({
  /** Absent: every user with data. */
  user_id: Schema.optional(ScopeFields.user_id),
  /** Rows embedded per provider request and stored per transaction. */
  batch_size: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 2048)), { default: () => 64 }),
  /** A soft deadline: the run stops between batches once it has passed; 0 means none. */
  max_processing_time_sec: Schema.optionalWith(Schema.Number.pipe(Schema.between(0, 3600)), { default: () => 0 }),
  async: Schema.optional(Schema.Boolean),
  async_mode: Schema.optional(Schema.Boolean)
}).annotations(forbidExtra)
export type EmbedRequest = typeof EmbedRequest.Type

export class EmbedResult extends Schema.Class<EmbedResult>("EmbedResult")({
  /** null when the run was for every user. */
  user_id: Schema.NullOr(Schema.String),
  /** already_running: another run held a user's store (a run for every user skips that user and goes on). */
  status: Schema.Literal("ok", "already_running"),
  /** The vector space embedded toward: the configured embedder's. */
  model: Schema.String,
  dimensions: Schema.Int,
  embedded: Schema.Int,
  /** Stores whose vectors were of another model or dimension and now are of this one. */
  switched: Schema.Int,
  cancelled: Schema.Boolean,
  /** Facts and turns still without a vector of the model: repeated runs bring it to 0. */
  remaining: Schema.Int
}) {}

export class MaintenanceApi extends HttpApiGroup.make("maintenance")
  .add(
    HttpApiEndpoint.post("dream", "/v1/maintenance/dream")
      .setPayload(DreamRequest)
      .addSuccess(DreamResult)
      .addSuccess(JobStarted, { status: 202 })
      .addError(NotImplementedWire)
      .addError(InvalidScopeWire)
      .addError(ProviderFailureWire)
      .addError(StoreUnavailableWire)
      .annotate(OpenApi.Summary, "Rebuild the profiles of a user's stale entities")
      .annotate(
        OpenApi.Description,
        "Rebuild the profiles of a user's stale entities, at most batch_size per call, each in its own transaction superseding the previous profile: with an LLM a summary citing the facts, without one a digest of the current facts. A run already going for the user answers 200 status already_running; the soft deadline stops between entities with cancelled true. remaining_stale says what is left. Sync by default; async (or async_mode) answers 202 with a dream job. Never scheduled by the service itself."
      )
  )
  .add(
    HttpApiEndpoint.post("embed", "/v1/maintenance/embed")
      .setPayload(EmbedRequest)
      .addSuccess(EmbedResult)
      .addSuccess(JobStarted, { status: 202 })
      .addError(InvalidScopeWire)
      .addError(ProviderFailureWire)
      .addError(ServiceUnavailableWire)
      .addError(StoreUnavailableWire)
      .annotate(OpenApi.Summary, "Embed a user's facts and turns that lack a vector of the configured model")
      .annotate(
        OpenApi.Description,
        "Embed every fact and turn of a user (or of every user, without user_id) that lacks a vector of the configured embedding model and dimension, batch_size rows per provider request, each batch stored in its own transaction. A store whose vectors are of another model or dimension is re-embedded in full: the new vectors are staged while the old ones keep serving, and replace them in one transaction once every row has one. A run already going for a user answers 200 status already_running; the soft deadline stops between batches with cancelled true; remaining says what is left, and repeated calls bring it to 0. Without an embedding provider, 503 service_unavailable. Sync by default; async (or async_mode) answers 202 with an embed job."
      )
  )
  .middleware(ScopeKeysInQuery)
  .middleware(Authentication) {}
