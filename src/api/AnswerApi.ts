import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "./Authentication.js"
import { ScopeKeysInQuery } from "./ScopeKeysInQuery.js"
import { InvalidScopeWire, ProviderFailureWire, ServiceUnavailableWire, StoreUnavailableWire } from "./errors.js"
import { ScopeFields } from "./MemoriesApi.js"
import { JobStarted } from "./JobsApi.js"
import { Text } from "./text.js"
import { forbidExtra } from "./validation.js"

const bounded = (min: number, max: number, fallback: number) =>
  Schema.optionalWith(Schema.Int.pipe(Schema.between(min, max)), { default: () => fallback })

export const AnswerRequest = Schema.Struct({
  ...ScopeFields,
  question: Text.pipe(Schema.minLength(1)),
  /** The anchor of relative time ("last week"); the server's local date when absent. */
  current_date: Schema.optional(Schema.NullOr(Text)),
  max_steps: bounded(1, 24, 12),
  planner_max_tokens: bounded(64, 8192, 1200),
  reader_max_tokens: bounded(64, 16384, 3000),
  temperature: Schema.optionalWith(Schema.Number.pipe(Schema.between(0, 2)), { default: () => 0 }),
  async_mode: Schema.optionalWith(Schema.Boolean, { default: () => false })
}).annotations(forbidExtra)
export type AnswerRequest = typeof AnswerRequest.Type

export const Termination = Schema.Literal("planner_final", "max_steps_reader_fallback", "stall_stop_reader_fallback")

export class AnswerResponse extends Schema.Class<AnswerResponse>("AnswerResponse")({
  answer: Schema.String,
  /** Evidence ids (ev_fact:…, ev_raw:…) the answer rests on, all among what the reader saw. */
  citations: Schema.Array(Schema.String),
  termination: Termination,
  planner_steps: Schema.Int,
  insufficient: Schema.Boolean,
  missing_information: Schema.String,
  /** This answer's LLM usage: totals, by phase (plan, read), served models and each call; {} when none. */
  usage: Schema.Record({ key: Schema.String, value: Schema.Unknown })
}) {}


export class AnswerApi extends HttpApiGroup.make("answer")
  .add(
    HttpApiEndpoint.post("answer", "/v1/answer")
      .setPayload(AnswerRequest)
      .addSuccess(AnswerResponse)
      .addSuccess(JobStarted, { status: 202 })
      .addError(ServiceUnavailableWire)
      .addError(ProviderFailureWire)
      .addError(InvalidScopeWire)
      .addError(StoreUnavailableWire)
      .annotate(OpenApi.Summary, "Answer a question from a user's memory with the configured LLM, with citations")
      .annotate(
        OpenApi.Description,
        "Answer a question from a user's memory with the configured LLM: a planner searches the memory step by step (up to max_steps), then a reader answers only from the evidence gathered, with citations. Sync by default; async_mode answers 202 with an answer job. No LLM configured → 503 service_unavailable."
      )
  )
  .middleware(ScopeKeysInQuery)
  .middleware(Authentication) {}
