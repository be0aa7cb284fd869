import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "./Authentication.js"
import { ScopeKeysInQuery } from "./ScopeKeysInQuery.js"
import { InvalidScopeWire, NotImplementedWire, ProviderFailureWire, ServiceUnavailableWire, StoreUnavailableWire } from "./errors.js"
import { MaintenanceAsync, maxProcessingTime, UserId, UserIdEcho } from "./fields.js"
import { ScopeFields } from "./MemoriesApi.js"
import { JobStarted } from "./JobsApi.js"
import { forbidExtra } from "./validation.js"

export const PriorityOrder = Schema.Literal("by_staleness", "by_fact_count_delta", "fifo")

const cancelled = Schema.Boolean.annotations({ description: "Whether the soft deadline stopped the run before it was done; the next run takes up what is left." })

export const DreamRequest = Schema.Struct({
  ...ScopeFields,
  batch_size: Schema.optionalWith(
    Schema.Int.pipe(Schema.between(1, 1000)).annotations({ description: "How many stale entities at most this run rebuilds: 1–1000, default 50." }),
    { default: () => 50 }
  ),
  max_processing_time_sec: maxProcessingTime("between entities"),
  priority_order: Schema.optionalWith(
    PriorityOrder.annotations({
      description: "Which stale entities go first: by_staleness (default: the longest untouched), by_fact_count_delta (those with the most current memories) or fifo (in the order they were first seen)."
    }),
    { default: () => "by_staleness" as const }
  ),
  // The reference names the flag `async`; every other route says `async_mode`: both are read.
  ...MaintenanceAsync
}).annotations({
  ...forbidExtra,
  examples: [{ user_id: "alice", batch_size: 200, max_processing_time_sec: 30, priority_order: "by_staleness", async: false }]
})
export type DreamRequest = typeof DreamRequest.Type

export class DreamResult extends Schema.Class<DreamResult>("DreamResult")({
  user_id: UserIdEcho,
  status: Schema.Literal("ok", "already_running").annotations({
    description: "ok, or already_running when a maintenance run (dream or embed) was already going for the user: then nothing was done."
  }),
  entities_processed: Schema.Int.annotations({ description: "Stale entities rebuilt by this run." }),
  profiles_written: Schema.Int.annotations({ description: "Profiles written (an entity gets one per scope its memories are stamped with)." }),
  profiles_superseded: Schema.Int.annotations({ description: "Earlier profiles the new ones superseded." }),
  cancelled,
  remaining_stale: Schema.Int.annotations({ description: "Entities still waiting for a new profile: repeated runs bring it to 0." })
}, { description: "What a dream run did, and what is left." }) {}

export const EmbedRequest = Schema.Struct({
  user_id: Schema.optional(UserId.annotations({ description: "The user whose facts and turns to embed; absent: every user with data." })),
  batch_size: Schema.optionalWith(
    Schema.Int.pipe(Schema.between(1, 2048)).annotations({
      description: "Rows embedded per provider request and stored per transaction: 1–2048, default 64."
    }),
    { default: () => 64 }
  ),
  max_processing_time_sec: maxProcessingTime("between batches"),
  ...MaintenanceAsync
}).annotations({
  ...forbidExtra,
  examples: [{ user_id: "alice", batch_size: 128, max_processing_time_sec: 30, async: false }]
})
export type EmbedRequest = typeof EmbedRequest.Type

export class EmbedResult extends Schema.Class<EmbedResult>("EmbedResult")({
  user_id: Schema.NullOr(Schema.String).annotations({ description: "The user embedded; null when the run was for every user." }),
  status: Schema.Literal("ok", "already_running").annotations({
    description: "ok, or already_running when another maintenance run held a user's store (a run for every user skips that user, goes on with the others and says so here)."
  }),
  model: Schema.String.annotations({ description: "The embedding model the vectors are of: the configured embedder's." }),
  dimensions: Schema.Int.annotations({ description: "How many dimensions its vectors have." }),
  embedded: Schema.Int.annotations({ description: "Facts and turns given a vector by this run." }),
  switched: Schema.Int.annotations({ description: "Stores whose vectors were of another model or dimension and now are of this one." }),
  cancelled,
  remaining: Schema.Int.annotations({ description: "Facts and turns still without a vector of the model: repeated runs bring it to 0." })
}, { description: "What an embedding run did, and what is left." }) {}

export class MaintenanceApi extends HttpApiGroup.make("maintenance")
  .annotate(
    OpenApi.Description,
    "Runs the service never starts by itself (schedule them if you want them regular): rebuild stale entity profiles, and give vectors of the configured embedding model to what lacks them."
  )
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
