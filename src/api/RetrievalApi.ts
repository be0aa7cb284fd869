import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "./Authentication.js"
import { ScopeKeysInQuery } from "./ScopeKeysInQuery.js"
import { InvalidScopeWire, StoreUnavailableWire } from "./errors.js"
import { ScopeFields, ScopeQuery } from "./MemoriesApi.js"
import { JsonObject } from "./fields.js"
import { Text } from "./text.js"
import { forbidExtra, queryInt } from "./validation.js"

/** A retrieval leg that could not run, and why; the request still answers with the others. */
export class Degraded extends Schema.Class<Degraded>("Degraded")({
  code: Schema.String.annotations({
    description: "What went wrong, stable for matching: vector_route_failed when the vector leg could not run (no embedder, no vectors yet, vectors of another dimension, or a query that could not be embedded)."
  }),
  message: Schema.String.annotations({ description: "The reason, for reading." }),
  details: JsonObject("More about it: for vector_route_failed, channel (fact_events or raw_turns).")
}, { description: "A retrieval leg that could not run; the request still answers with the others." }) {}

export const Query = Text.pipe(Schema.minLength(1)).annotations({ description: "What to look for, in the user's own words: at least one character." })

const Degradations = Schema.Array(Degraded).annotations({ description: "Each retrieval leg that could not run, with why; empty when all ran." })

export const SearchRequest = Schema.Struct({
  ...ScopeFields,
  query: Query,
  top_k: Schema.optionalWith(
    Schema.Int.pipe(Schema.between(1, 100)).annotations({ description: "How many hits at most: 1–100, default 10." }),
    { default: () => 10 }
  ),
  include_superseded: Schema.optionalWith(
    Schema.Boolean.annotations({ description: "Whether superseded versions may be hits too (default false); archived memories never are." }),
    { default: () => false }
  )
}).annotations({
  ...forbidExtra,
  examples: [{ user_id: "alice", query: "Where does Alice live now?", top_k: 5, include_superseded: false }]
})
export type SearchRequest = typeof SearchRequest.Type

export class SearchHit extends Schema.Class<SearchHit>("SearchHit")({
  id: Schema.String.annotations({
    description: "A memory's id (fact_<uuid>) when the hit is a memory, else the evidence id of a raw turn (ev_raw:<turn_id>)."
  }),
  content: Schema.String.annotations({ description: "The words that matched: a memory's support text (the words of its source turns, else its statement), or a raw turn's text up to 1800 characters." }),
  score: Schema.NullOr(Schema.Number).annotations({ description: "The fused ranking score: higher ranks first; comparable only within one response." }),
  session_id: Schema.NullOr(Schema.String).annotations({ description: "The session the hit comes from; null when unknown." }),
  occurred_at: Schema.NullOr(Schema.String).annotations({
    description: "When it happened: the memory's date, else its session's time, at its own precision (YYYY to YYYY-MM-DDTHH:MM:SS); null when unknown."
  }),
  metadata: JsonObject("The whole evidence item: evidence_id, fact_id, provenance (source spans, session, turn, role), kind, status, entity_roles, scope, validity, and routes and rank (how each retrieval leg ranked it).")
}, { description: "One search result: a memory or a raw turn." }) {}

export class SearchResponse extends Schema.Class<SearchResponse>("SearchResponse")({
  query: Schema.String.annotations({ description: "The query, echoed." }),
  hits: Schema.Array(SearchHit).annotations({ description: "The hits, best first: at most top_k." }),
  degraded: Degradations
}, { description: "Ranked hits, and the legs that could not run." }) {}

const TOKEN_BUDGET = { min: 100, max: 32_000, default: 2_000 }

const TOKEN_BUDGET_DESCRIPTION =
  `The most tokens the block may take, counted with a real tokenizer: ${TOKEN_BUDGET.min}–${TOKEN_BUDGET.max}, default ${TOKEN_BUDGET.default}. Rendering stops before the first card that would pass it.`

export const ContextRequest = Schema.Struct({
  ...ScopeFields,
  query: Query,
  token_budget: Schema.optionalWith(
    Schema.Int.pipe(Schema.between(TOKEN_BUDGET.min, TOKEN_BUDGET.max)).annotations({ description: TOKEN_BUDGET_DESCRIPTION }),
    { default: () => TOKEN_BUDGET.default }
  )
}).annotations({
  ...forbidExtra,
  examples: [{ user_id: "alice", query: "camping with the kids", token_budget: 500 }]
})
export type ContextRequest = typeof ContextRequest.Type

/** The GET form: the same fields as query parameters; unknown parameters are refused. */
export const ContextQuery = Schema.Struct({
  ...ScopeQuery,
  query: Query,
  token_budget: Schema.optionalWith(queryInt(TOKEN_BUDGET), { default: () => TOKEN_BUDGET.default }).annotations({
    description: TOKEN_BUDGET_DESCRIPTION
  })
}).annotations(forbidExtra)

export class ContextResponse extends Schema.Class<ContextResponse>("ContextResponse")({
  text: Schema.String.annotations({
    description: "The block for a prompt: one card per line, best first, as \"- evidence_id=… support=… date=… source=<session>/<turn> … expanded=False\"; \"\" when nothing matched."
  }),
  citations: Schema.Array(Schema.String).annotations({ description: "The evidence ids of the rendered cards (ev_fact:…, ev_raw:…), in order: exactly what text cites." }),
  evidence: Schema.Array(JsonObject("One rendered card: evidence_id, those of support, predicate, entities, date, source (<session>/<turn>), role, status and version_status that have a value, and expanded (false).")).annotations({
    description: "The rendered cards, in order."
  }),
  degraded: Degradations
}, { description: "A prompt-ready block of cited evidence." }) {}

export class RetrievalApi extends HttpApiGroup.make("retrieval")
  .annotate(
    OpenApi.Description,
    "Recall with no LLM call: ranked search over a user's memories and raw turns, and the same retrieval rendered as a prompt-ready context block within a token budget."
  )
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
