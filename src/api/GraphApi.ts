import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "./Authentication.js"
import { ScopeKeysInQuery } from "./ScopeKeysInQuery.js"
import { EvidenceCard, FactCard } from "./cards.js"
import { InvalidScopeWire, StoreUnavailableWire } from "./errors.js"
import { ScopeFields, ScopeQuery } from "./MemoriesApi.js"
import { Degraded, Query } from "./RetrievalApi.js"
import { Text } from "./text.js"
import { forbidExtra, queryInt } from "./validation.js"

const DATE = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?)?)?$/

/** A calendar date at any precision the store keeps: YYYY, YYYY-MM, YYYY-MM-DD, optionally with a time. */
const isLocalDate = (value: string) => {
  const match = DATE.exec(value)
  if (match === null) return false
  const [, year, month, day] = match
  if (month === undefined) return true
  const m = Number(month)
  if (m < 1 || m > 12) return false
  if (day === undefined) return true
  const d = Number(day)
  return d >= 1 && d <= new Date(Date.UTC(Number(year), m, 0)).getUTCDate()
}

export const LocalDate = Schema.String.pipe(Schema.filter(isLocalDate, {
  message: () => "Input should be a date: YYYY, YYYY-MM or YYYY-MM-DD, optionally followed by a time (THH:MM[:SS])",
  description: "a date: YYYY, YYYY-MM or YYYY-MM-DD, optionally followed by a time (THH:MM[:SS]); compared on its date",
  jsonSchema: { pattern: DATE.source }
}))

export const TimelineQuery = Schema.Struct({ ...ScopeQuery, entity_id: Text.pipe(Schema.minLength(1)) })

export class EntityTimeline extends Schema.Class<EntityTimeline>("EntityTimeline")({
  user_id: Schema.String,
  entity_id: Schema.String,
  items: Schema.Array(FactCard),
  count: Schema.Int
}) {}

export const ExploreQuery = Schema.Struct({
  ...ScopeQuery,
  start_id: Text.pipe(Schema.minLength(1)),
  depth: Schema.optionalWith(queryInt({ min: 1, max: 3 }), { default: () => 1 }),
  limit: Schema.optionalWith(queryInt({ min: 1, max: 100 }), { default: () => 25 })
})

export class Edge extends Schema.Class<Edge>("Edge")({
  edge_id: Schema.String,
  user_id: Schema.String,
  src_fact_id: Schema.String,
  /** A fact, an entity (`entity_<slug>`) or a span id. */
  dst_id: Schema.String,
  edge_type: Schema.String,
  predicate_raw: Schema.String,
  predicate_canonical: Schema.String,
  confidence: Schema.Number,
  metadata: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  /** Epoch seconds. */
  created_at: Schema.Number
}) {}

export class ExploreResult extends Schema.Class<ExploreResult>("ExploreResult")({
  user_id: Schema.String,
  start_id: Schema.String,
  start_type: Schema.Literal("memory"),
  count: Schema.Struct({ nodes: Schema.Int, edges: Schema.Int }),
  nodes: Schema.Array(FactCard),
  edges: Schema.Array(Edge)
}) {}

export const RefineRequest = Schema.Struct({
  ...ScopeFields,
  query: Query,
  top_k: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 100)), { default: () => 10 }),
  entity: Schema.optionalWith(Text, { default: () => "" }),
  session_id: Schema.optionalWith(Text, { default: () => "" }),
  min_confidence: Schema.optionalWith(Schema.NullOr(Schema.Number.pipe(Schema.between(0, 1))), { default: () => null }),
  occurred_from: Schema.optionalWith(Schema.NullOr(LocalDate), { default: () => null }),
  occurred_to: Schema.optionalWith(Schema.NullOr(LocalDate), { default: () => null })
}).annotations(forbidExtra)
export type RefineRequest = typeof RefineRequest.Type

const Strings = Schema.Array(Schema.String)

/** The filters applied, every key present; over HTTP only entity, session_id, min_confidence and the dates can be set. */
export class RefineFilters extends Schema.Class<RefineFilters>("RefineFilters")({
  source_types: Strings,
  event_types: Strings,
  modalities: Strings,
  kinds: Strings,
  source_roles: Strings,
  session_id: Schema.String,
  entity: Schema.String,
  entity_roles: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  status: Strings,
  quantity_units: Strings,
  occurred_from: Schema.NullOr(Schema.String),
  occurred_to: Schema.NullOr(Schema.String),
  created_from: Schema.Null,
  created_to: Schema.Null,
  valid_from: Schema.Null,
  valid_to: Schema.Null,
  min_confidence: Schema.NullOr(Schema.Number),
  include_terms: Strings,
  exclude_terms: Strings
}) {}

export class NextTool extends Schema.Class<NextTool>("NextTool")({ name: Schema.String, description: Schema.String }) {}

export class RefineResponse extends Schema.Class<RefineResponse>("RefineResponse")({
  user_id: Schema.String,
  query: Schema.String,
  items: Schema.Array(EvidenceCard),
  offset: Schema.Literal(0),
  next_offset: Schema.Int,
  has_more: Schema.Boolean,
  total_candidates: Schema.Int,
  filters: RefineFilters,
  available_next_tools: Schema.Array(NextTool),
  degraded: Schema.Array(Degraded)
}) {}

export class GraphApi extends HttpApiGroup.make("graph")
  .add(
    HttpApiEndpoint.get("entityTimeline", "/v1/entity_timeline")
      .setUrlParams(TimelineQuery)
      .addSuccess(EntityTimeline)
      .addError(InvalidScopeWire)
      .addError(StoreUnavailableWire)
      .annotate(OpenApi.Summary, "The memories of every entity a name matches, oldest first")
      .annotate(
        OpenApi.Description,
        "The memories of every entity whose name contains entity_id (case and accents ignored; at most 200 entities), of any status (marked in status and version_status), oldest first: undated first, then by occurred_start, ties in insertion order. An unknown entity is 200 with no items. Scope keys narrow."
      )
  )
  .add(
    HttpApiEndpoint.get("explore", "/v1/explore")
      .setUrlParams(ExploreQuery)
      .addSuccess(ExploreResult)
      .addError(InvalidScopeWire)
      .addError(StoreUnavailableWire)
      .annotate(OpenApi.Summary, "The graph around a memory, breadth first for 1..3 levels")
      .annotate(
        OpenApi.Description,
        "The graph around a memory, breadth first over edges in both directions for depth levels (1..3). An entity is not a node: reaching one also reaches, in the same level, the other memories linked to it. Edges are ordered by level, then created_at, then edge_id; the walk stops after the level in which limit edges were found; edges is cut to limit, count.edges is how many were found. Nodes are the start and the memories the returned edges touch. An unknown start is 200 and empty. Scope keys narrow."
      )
  )
  .add(
    HttpApiEndpoint.post("refine", "/v1/refine")
      .setPayload(RefineRequest)
      .addSuccess(RefineResponse)
      .addError(InvalidScopeWire)
      .addError(StoreUnavailableWire)
      .annotate(OpenApi.Summary, "Search narrowed by entity, session, confidence and dates, with no LLM call")
      .annotate(
        OpenApi.Description,
        "Search (no LLM call) narrowed by filters: entity (a linked entity's name contains it, case and accents ignored), session_id (the source session), min_confidence (raw turns have none and are left out when it is set), occurred_from / occurred_to (inclusive, on the date of occurred_start, else session_time, at the coarser of the two precisions). top_k is capped at 50; total_candidates counts the matches before the cut. Scope keys narrow."
      )
  )
  .middleware(ScopeKeysInQuery)
  .middleware(Authentication) {}
