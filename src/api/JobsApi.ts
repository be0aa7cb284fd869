import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "./Authentication.js"
import { ScopeKeysInQuery } from "./ScopeKeysInQuery.js"
import { NotFoundWire, StoreUnavailableWire } from "./errors.js"
import { Text } from "./text.js"

export const JobStatus = Schema.Literal("pending", "running", "succeeded", "failed")
export type JobStatus = typeof JobStatus.Type

export const JobKind = Schema.Literal("ingest", "ingest_batch", "dream", "answer", "embed")
export type JobKind = typeof JobKind.Type

export class Job extends Schema.Class<Job>("Job")({
  job_id: Schema.String,
  status: JobStatus,
  kind: JobKind,
  user_id: Schema.String,
  created_at: Schema.String,
  finished_at: Schema.NullOr(Schema.String),
  result: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  error: Schema.NullOr(Schema.String)
}) {}

/** A job accepted for a route that gives no session: its id to poll. */
export class JobStarted extends Schema.Class<JobStarted>("JobStarted")({
  job_id: Schema.String,
  status: Schema.Literal("pending")
}) {}

export class JobsApi extends HttpApiGroup.make("jobs")
  .add(
    HttpApiEndpoint.get("getJob", "/v1/jobs/:job_id")
      .setPath(Schema.Struct({ job_id: Text }))
      .addSuccess(Job)
      .addError(NotFoundWire)
      .annotate(OpenApi.Summary, "Status of an asynchronous job; found across restarts until pruned by retention")
      .addError(StoreUnavailableWire)
  )
  .middleware(ScopeKeysInQuery)
  .middleware(Authentication) {}
