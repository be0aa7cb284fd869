import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "./Authentication.js"
import { ScopeKeysInQuery } from "./ScopeKeysInQuery.js"
import { EvidenceCard, FactCard } from "./cards.js"
import { InvalidScopeWire, StoreUnavailableWire } from "./errors.js"
import { JsonObject, MemoryIdField, UserIdEcho } from "./fields.js"
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
  description: "A date: YYYY, YYYY-MM or YYYY-MM-DD, optionally followed by a time (THH:MM[:SS]); compared on its date.",
  jsonSchema: { pattern: DATE.source }
}))

export const TimelineQuery = Schema.Struct({
  ...ScopeQuery,
  entity_id: Text.pipe(Schema.minLength(1)).annotations({
    description: "Part of an entity's name (a person, place, thing): every entity whose name contains it, case and accents ignored, up to 200 entities."
  })
})

export class EntityTimeline extends Schema.Class<EntityTimeline>("EntityTimeline")({
  user_id: UserIdEcho,
  entity_id: Schema.String.annotations({ description: "The entity_id asked for, echoed." }),
  items: Schema.Array(FactCard).annotations({
    description: "The memories about the matching entities, of any status, oldest first: undated first, then by occurred_start, ties in insertion order."
  }),
  count: Schema.Int.annotations({ description: "How many items." })
}, { description: "The memories about an entity, in time order." }) {}

export const ExploreQuery = Schema.Struct({
  ...ScopeQuery,
  start_id: Text.pipe(Schema.minLength(1)).annotations({ description: "The memory to start from (fact_<uuid>); an unknown one answers an empty graph." }),
  depth: Schema.optionalWith(queryInt({ min: 1, max: 3 }), { default: () => 1 }).annotations({
    description: "How many levels of edges to walk: 1–3, default 1."
  }),
  limit: Schema.optionalWith(queryInt({ min: 1, max: 100 }), { default: () => 25 }).annotations({
    description: "How many edges at most: 1–100, default 25. The walk stops after the level that reached it."
  })
})

export class Edge extends Schema.Class<Edge>("Edge")({
  edge_id: Schema.String.annotations({ description: "The edge's id." }),
  user_id: UserIdEcho,
  src_fact_id: MemoryIdField("The memory the edge starts from"),
  dst_id: Schema.String.annotations({ description: "Where it leads: a memory (fact_<uuid>) or an entity (entity_<slug>)." }),
  edge_type: Schema.String.annotations({
    description: "What links them: SUBJECT_OF, OBJECT_OF or MENTIONS (a memory and an entity it involves, by role), SUPERSEDES (a new version and the one it replaced)."
  }),
  predicate_raw: Schema.String.annotations({ description: "The relation the link stands for: the source memory's predicate, or supersedes for SUPERSEDES; \"\" when none." }),
  predicate_canonical: Schema.String.annotations({ description: "The same relation, as stored; the reference service's name for it." }),
  confidence: Schema.Number.annotations({ description: "How sure the link is, 0–1: 1 for the edges the service writes." }),
  metadata: JsonObject("Free-form; {} for the edges the service writes."),
  created_at: Schema.Number.annotations({ description: "When the edge was written, in epoch seconds." })
}, { description: "A link of the memory graph." }) {}

export class ExploreResult extends Schema.Class<ExploreResult>("ExploreResult")({
  user_id: UserIdEcho,
  start_id: Schema.String.annotations({ description: "The start_id asked for, echoed." }),
  start_type: Schema.Literal("memory").annotations({ description: "What start_id names: always a memory." }),
  count: Schema.Struct({
    nodes: Schema.Int.annotations({ description: "How many nodes." }),
    edges: Schema.Int.annotations({ description: "How many edges the walk found, which may be more than edges holds (cut to limit)." })
  }).annotations({ description: "The size of the graph." }),
  nodes: Schema.Array(FactCard).annotations({ description: "The start and the memories the returned edges touch; entities are not nodes." }),
  edges: Schema.Array(Edge).annotations({ description: "The edges found, by level, then created_at, then edge_id; at most limit." })
}, { description: "The graph around a memory." }) {}

const MAX_REFINE_ITEMS = 50

export const RefineRequest = Schema.Struct({
  ...ScopeFields,
  query: Query,
  top_k: Schema.optionalWith(
    Schema.Int.pipe(Schema.between(1, 100)).annotations({ description: `How many items at most: 1–100, default 10; at most ${MAX_REFINE_ITEMS} are returned whatever it asks.` }),
    { default: () => 10 }
  ),
  entity: Schema.optionalWith(
    Text.annotations({ description: "Keep evidence linked to an entity whose name contains this, case and accents ignored; \"\" (default) keeps all." }),
    { default: () => "" }
  ),
  session_id: Schema.optionalWith(
    Text.annotations({ description: "Keep evidence from this source session; \"\" (default) keeps all." }),
    { default: () => "" }
  ),
  min_confidence: Schema.optionalWith(
    Schema.NullOr(Schema.Number.pipe(Schema.between(0, 1))).annotations({
      description: "Keep memories at least this confident, 0–1; raw turns, which have no confidence, are then left out. null (default): no bound."
    }),
    { default: () => null }
  ),
  occurred_from: Schema.optionalWith(
    Schema.NullOr(LocalDate).annotations({
      description: "Keep evidence dated on or after this date: its occurred_start, else its session's time, compared at the coarser of the two precisions. null (default): no bound."
    }),
    { default: () => null }
  ),
  occurred_to: Schema.optionalWith(
    Schema.NullOr(LocalDate).annotations({ description: "Keep evidence dated on or before this date, compared as occurred_from. null (default): no bound." }),
    { default: () => null }
  )
}).annotations({
  ...forbidExtra,
  examples: [{
    user_id: "alice",
    query: "coffee with Ana",
    top_k: 10,
    entity: "ana",
    session_id: "",
    min_confidence: 0.5,
    occurred_from: "2024-01",
    occurred_to: "2024-06-30"
  }]
})
export type RefineRequest = typeof RefineRequest.Type

const Unused = (what: string) => Schema.Array(Schema.String).annotations({ description: `${what}: always [] (not settable over HTTP).` })
const UnusedBound = (what: string) => Schema.Null.annotations({ description: `${what}: always null (not settable over HTTP).` })

/** The filters applied, every key present; over HTTP only entity, session_id, min_confidence and the dates can be set. */
export class RefineFilters extends Schema.Class<RefineFilters>("RefineFilters")({
  source_types: Unused("Source types kept"),
  event_types: Unused("Event types kept"),
  modalities: Unused("Modalities kept"),
  kinds: Unused("Memory kinds kept"),
  source_roles: Unused("Speaker roles kept"),
  session_id: Schema.String.annotations({ description: "The session_id filter applied; \"\" when none." }),
  entity: Schema.String.annotations({ description: "The entity filter applied; \"\" when none." }),
  entity_roles: JsonObject("Entity roles required: always {} (not settable over HTTP)."),
  status: Unused("Statuses kept"),
  quantity_units: Unused("Quantity units kept"),
  occurred_from: Schema.NullOr(Schema.String).annotations({ description: "The occurred_from filter applied; null when none." }),
  occurred_to: Schema.NullOr(Schema.String).annotations({ description: "The occurred_to filter applied; null when none." }),
  created_from: UnusedBound("Lower bound on creation time"),
  created_to: UnusedBound("Upper bound on creation time"),
  valid_from: UnusedBound("Lower bound on validity"),
  valid_to: UnusedBound("Upper bound on validity"),
  min_confidence: Schema.NullOr(Schema.Number).annotations({ description: "The min_confidence filter applied; null when none." }),
  include_terms: Unused("Terms required"),
  exclude_terms: Unused("Terms excluded")
}, { description: "The filters applied, every key present as the reference service echoes them." }) {}

export class NextTool extends Schema.Class<NextTool>("NextTool")({
  name: Schema.String.annotations({ description: "The MCP tool's name (memory.tool.refine, memory.tool.search-more, …)." }),
  description: Schema.String.annotations({ description: "What it would do next, and through which route." })
}, { description: "A suggested next step." }) {}

export class RefineResponse extends Schema.Class<RefineResponse>("RefineResponse")({
  user_id: UserIdEcho,
  query: Schema.String.annotations({ description: "The query, echoed." }),
  items: Schema.Array(EvidenceCard).annotations({ description: "The evidence kept, best first." }),
  offset: Schema.Literal(0).annotations({ description: "Always 0: refine answers one page." }),
  next_offset: Schema.Int.annotations({ description: "Where a next page would start: the number of items." }),
  has_more: Schema.Boolean.annotations({ description: "Whether more evidence matched than items holds." }),
  total_candidates: Schema.Int.annotations({ description: "How much evidence matched the filters before the top_k cut." }),
  filters: RefineFilters,
  available_next_tools: Schema.Array(NextTool).annotations({ description: "Suggested next steps, for an agent." }),
  degraded: Schema.Array(Degraded).annotations({ description: "Each retrieval leg that could not run, with why; empty when all ran." })
}, { description: "Filtered search results, as cards." }) {}

export class GraphApi extends HttpApiGroup.make("graph")
  .annotate(
    OpenApi.Description,
    "Read a user's memory as a graph, with no LLM call: the memories about an entity in time order, the graph around a memory, and search narrowed by entity, session, confidence and dates."
  )
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
