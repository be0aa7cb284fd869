import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "./Authentication.js"
import { ScopeKeysInQuery } from "./ScopeKeysInQuery.js"
import { InvalidScopeWire, ProviderFailureWire, ServiceUnavailableWire, StoreUnavailableWire } from "./errors.js"
import { ScopeFields } from "./MemoriesApi.js"
import { JobStarted } from "./JobsApi.js"
import { asyncMode, JsonObject } from "./fields.js"
import { Text } from "./text.js"
import { forbidExtra } from "./validation.js"

const bounded = (min: number, max: number, fallback: number, what: string) =>
  Schema.optionalWith(
    Schema.Int.pipe(Schema.between(min, max)).annotations({ description: `${what}: ${min}–${max}, default ${fallback}.` }),
    { default: () => fallback }
  )

export const AnswerRequest = Schema.Struct({
  ...ScopeFields,
  question: Text.pipe(Schema.minLength(1)).annotations({ description: "The question, in the user's own words: at least one character." }),
  current_date: Schema.optional(Schema.NullOr(Text).annotations({
    description: "Today, as the anchor of relative time (\"last week\"), e.g. 2024-06-01; absent or null: the server's local date."
  })),
  max_steps: bounded(1, 24, 12, "The most searches the planner may run before the reader answers from what was found"),
  planner_max_tokens: bounded(64, 8192, 1200, "The most output tokens of each planner call"),
  reader_max_tokens: bounded(64, 16384, 3000, "The most output tokens of the reader's call"),
  temperature: Schema.optionalWith(
    Schema.Number.pipe(Schema.between(0, 2)).annotations({ description: "The LLM's sampling temperature: 0–2, default 0 (the most deterministic)." }),
    { default: () => 0 }
  ),
  async_mode: asyncMode(false)
}).annotations({
  ...forbidExtra,
  examples: [{
    user_id: "alice",
    question: "Where did I move last year, and when?",
    current_date: "2025-02-10",
    max_steps: 12,
    planner_max_tokens: 1200,
    reader_max_tokens: 3000,
    temperature: 0,
    async_mode: false
  }]
})
export type AnswerRequest = typeof AnswerRequest.Type

export const Termination = Schema.Literal("planner_final", "max_steps_reader_fallback", "stall_stop_reader_fallback").annotations({
  description: "How the planning ended: planner_final (the planner was ready to answer), max_steps_reader_fallback (max_steps ran out) or stall_stop_reader_fallback (two searches in a row found nothing new)."
})

export class AnswerResponse extends Schema.Class<AnswerResponse>("AnswerResponse")({
  answer: Schema.String.annotations({ description: "The answer, from the evidence gathered and nothing else." }),
  citations: Schema.Array(Schema.String).annotations({
    description: "The evidence ids (ev_fact:…, ev_raw:…) the answer rests on, all among what the reader was shown."
  }),
  termination: Termination,
  planner_steps: Schema.Int.annotations({ description: "How many steps the planner took." }),
  insufficient: Schema.Boolean.annotations({ description: "Whether the memory did not hold enough to answer; missing_information then says what is lacking." }),
  missing_information: Schema.String.annotations({ description: "What the memory lacks to answer; \"\" when nothing is." }),
  usage: JsonObject("This answer's LLM usage: calls and tokens in total, by_phase (plan, read), served_models and calls_detail (each call); {} when the provider reported none.")
}, { description: "An answer with its citations." }) {}


export class AnswerApi extends HttpApiGroup.make("answer")
  .annotate(OpenApi.Description, "Answer a question from a user's memory with the configured LLM (the one part of reading that calls one).")
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
