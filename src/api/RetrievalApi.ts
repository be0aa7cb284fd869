import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "./Authentication.js"
import { ScopeKeysInQuery } from "./ScopeKeysInQuery.js"
import { InvalidScopeWire, StoreUnavailableWire } from "./errors.js"
import { ScopeFields, ScopeQuery } from "./MemoriesApi.js"
import { Text } from "./text.js"
import { forbidExtra, queryInt } from "./validation.js"

const Details = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** A retrieval leg that could not run, and why; the request still answers with the others. */
export class Degraded extends Schema.Class<Degraded>("Degraded")({
  code: Schema.String,
  message: Schema.String,
  details: Details
}) {}

export const Query = Text.pipe(Schema.minLength(1))

export const SearchRequest = Schema.Struct({
  ...ScopeFields,
  query: Query,
  top_k: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 100)), { default: () => 10 }),
  include_superseded: Schema.optionalWith(Schema.Boolean, { default: () => false })
}).annotations(forbidExtra)
export type SearchRequest = typeof SearchRequest.Type

export class SearchHit extends Schema.Class<SearchHit>("SearchHit")({
  id: Schema.String,
  content: Schema.String,
  score: Schema.NullOr(Schema.Number),
  session_id: Schema.NullOr(Schema.String),
  occurred_at: Schema.NullOr(Schema.String),
  metadata: Details
}) {}

export class SearchResponse extends Schema.Class<SearchResponse>("SearchResponse")({
  query: Schema.String,
  hits: Schema.Array(SearchHit),
  degraded: Schema.Array(Degraded)
}) {}

const TOKEN_BUDGET = { min: 100, max: 32_000, default: 2_000 }

export const ContextRequest = Schema.Struct({
  ...ScopeFields,
  query: Query,
  token_budget: Schema.optionalWith(Schema.Int.pipe(Schema.between(TOKEN_BUDGET.min, TOKEN_BUDGET.max)), { default: () => TOKEN_BUDGET.default })
}).annotations(forbidExtra)
export type ContextRequest = typeof ContextRequest.Type

/** The GET form: the same fields as query parameters; unknown parameters are refused. */
export const ContextQuery = Schema.Struct({
  ...ScopeQuery,
  query: Query,
  token_budget: Schema.optionalWith(queryInt(TOKEN_BUDGET), { default: () => TOKEN_BUDGET.default })
}).annotations(forbidExtra)

export class ContextResponse extends Schema.Class<ContextResponse>("ContextResponse")({
  text: Schema.String,
  citations: Schema.Array(Schema.String),
  evidence: Schema.Array(Details),
  degraded: Schema.Array(Degraded)
}) {}

export class RetrievalApi extends HttpApiGroup.make("retrieval")
  .add(
    HttpApiEndpoint.post("search", "/v1/search")
      .setPayload(SearchRequest)
      .addSuccess(SearchResponse)
      .addError(InvalidScopeWire)
      .addError(StoreUnavailableWire)
      .annotate(OpenApi.Summary, "Ranked recall over memories and raw turns, with no LLM call")
      .annotate(
        OpenApi.Description,
        "Ranked recall with no LLM call: lexical (bm25, stemmed) over facts and raw turns, entities named in the query, dates it names, and session neighbours, fused into one score with near-duplicates merged. Legs that cannot run are listed in degraded[]."
      )
  )
  .add(
    HttpApiEndpoint.get("contextGet", "/v1/context")
      .setUrlParams(ContextQuery)
      .addSuccess(ContextResponse)
      .addError(InvalidScopeWire)
      .addError(StoreUnavailableWire)
      .annotate(OpenApi.Summary, "A prompt-ready block of cited evidence within a token budget, with no LLM call")
      .annotate(OpenApi.Description, "A prompt-ready block of cited evidence within token_budget (default 2000), with no LLM call; unknown query parameters are refused.")
  )
  .add(
    HttpApiEndpoint.post("context", "/v1/context")
      .setPayload(ContextRequest)
      .addSuccess(ContextResponse)
      .addError(InvalidScopeWire)
      .addError(StoreUnavailableWire)
      .annotate(OpenApi.Summary, "The same as GET /v1/context, with a JSON body")
      .annotate(OpenApi.Description, "The same as GET /v1/context, with a JSON body.")
  )
  .middleware(ScopeKeysInQuery)
  .middleware(Authentication) {}
