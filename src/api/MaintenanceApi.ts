import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "./Authentication.js"
import { InvalidScopeWire, NotImplementedWire, ProviderFailureWire, StoreUnavailableWire } from "./errors.js"
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
  .middleware(Authentication) {}
