import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "./Authentication.js"
import { ConfigInvalidWire, IngestFailedWire, InvalidScopeWire, StoreUnavailableWire } from "./errors.js"
import { boundedString, forbidExtra } from "./validation.js"

export const Role = Schema.Literal("user", "assistant", "system")

export const Message = Schema.Struct({
  role: Schema.optionalWith(Role, { default: () => "user" as const }),
  content: Schema.String
}).annotations(forbidExtra)

const scopeKey = Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(128))))

/** The scope every request carries: a user, optionally narrowed to an agent, run or project. */
export const ScopeFields = {
  user_id: boundedString(1, 128),
  agent_id: scopeKey,
  run_id: scopeKey,
  project_id: scopeKey
}

export const SessionTime = Schema.NullOr(Schema.Union(Schema.String, Schema.Number))

export const AddMemoriesRequest = Schema.Struct({
  ...ScopeFields,
  messages: Schema.Array(Message).pipe(Schema.minItems(1)),
  session_id: Schema.optional(Schema.NullOr(Schema.String)),
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

export class MemoriesApi extends HttpApiGroup.make("memories")
  .add(
    HttpApiEndpoint.post("add", "/v1/memories")
      .setPayload(AddMemoriesRequest)
      .addSuccess(AddMemoriesResult)
      .addSuccess(JobAccepted, { status: 202 })
      .addError(InvalidScopeWire)
      .addError(ConfigInvalidWire)
      .addError(IngestFailedWire)
      .addError(StoreUnavailableWire)
      .annotate(
        OpenApi.Description,
        "Ingest a conversation. async_mode (default true) answers 202 with a job to poll; false answers 200 with counts. infer=false stores the turns verbatim and needs no LLM."
      )
  )
  .middleware(Authentication) {}
