import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "./Authentication.js"
import { ScopeKeysInQuery } from "./ScopeKeysInQuery.js"
import { NotFoundWire, StoreUnavailableWire } from "./errors.js"
import { utcTime, utcTimeOrNull } from "./fields.js"
import { Text } from "./text.js"

export const JobStatus = Schema.Literal("pending", "running", "succeeded", "failed")
export type JobStatus = typeof JobStatus.Type

export const JobKind = Schema.Literal("ingest", "ingest_batch", "dream", "answer", "embed")
export type JobKind = typeof JobKind.Type

const JobId = Schema.String.annotations({ description: "The job's id, 32 hex characters: poll it at GET /v1/jobs/{job_id}." })

export class Job extends Schema.Class<Job>("Job")({
  job_id: JobId,
  status: JobStatus.annotations({
    description: "pending (stored, waiting to run), running, then succeeded or failed. A job left pending or running by a crash or shutdown is resumed when the service starts again."
  }),
  kind: JobKind.annotations({
    description: "What the job does: ingest (POST /v1/memories), ingest_batch (POST /v1/memories/batch), dream, embed (POST /v1/maintenance/…) or answer (POST /v1/answer)."
  }),
  user_id: Schema.String.annotations({ description: "The user the job works for; * for an embed run over every user." }),
  created_at: utcTime("When the job was accepted"),
  finished_at: utcTimeOrNull("When it succeeded or failed", "while it is pending or running"),
  result: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })).annotations({
    description: "What the route would have answered synchronously (AddMemoriesResult, BatchAddResult, DreamResult, EmbedResult or AnswerResponse); null unless succeeded."
  }),
  error: Schema.NullOr(Schema.String).annotations({ description: "Why it failed, as \"<code>: <message>\"; null unless failed." })
}, { description: "An asynchronous job and, once finished, its result or error." }) {}

/** A job accepted for a route that gives no session: its id to poll. */
export class JobStarted extends Schema.Class<JobStarted>("JobStarted")({
  job_id: JobId,
  status: Schema.Literal("pending").annotations({ description: "Always pending: the job is stored and waiting to run." })
}, { description: "Work accepted as a job, to poll at GET /v1/jobs/{job_id}." }) {}

export class JobsApi extends HttpApiGroup.make("jobs")
  .annotate(OpenApi.Description, "Follow the asynchronous work that ingest, batch, answer, dream and embed start when asked for async_mode (or async).")
  .add(
    HttpApiEndpoint.get("getJob", "/v1/jobs/:job_id")
      .setPath(Schema.Struct({ job_id: Text.annotations({ description: "The id a 202 answer gave (32 hex characters)." }) }))
      .addSuccess(Job)
      .addError(NotFoundWire)
      .annotate(OpenApi.Summary, "Status of an asynchronous job; found across restarts until pruned by retention")
      .annotate(
        OpenApi.Description,
        "The status of a job a 202 answer gave, and its result or error once finished. Jobs are kept across restarts; SERVICE_JOB_RETENTION_MAX keeps the newest, pruning the oldest finished ones, and an unknown or pruned id is 404 not_found. Any valid key can read any job."
      )
      .addError(StoreUnavailableWire)
  )
  .middleware(ScopeKeysInQuery)
  .middleware(Authentication) {}
