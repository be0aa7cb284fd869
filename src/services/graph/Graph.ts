import { Effect, Option } from "effect"
import { Edge, EntityTimeline, ExploreResult, NextTool, RefineFilters, type RefineRequest, RefineResponse } from "../../api/GraphApi.js"
import { evidenceCard, factCard } from "../../retrieval/cards.js"
import { normalizeName } from "../../domain/text.js"
import { refineMatcher } from "../../retrieval/refineFilters.js"
import { type EdgeRow, factMetadata } from "../../domain/records.js"
import { type FactWithProvenance, UserStore } from "../../storage/UserStore.js"
import { type ScopeParams, scopeFilter } from "../memories/memoryRecords.js"
import { Retrieval } from "../recall/Retrieval.js"
import { span } from "../../util/span.js"

/** Entities a timeline gathers facts from, at most. */
const TIMELINE_ENTITIES = 200
/** Refine returns at most this many items, whatever top_k asks. */
const REFINE_MAX_ITEMS = 50
/** Candidates search ranks for refine to filter: the filters then choose among many more than they keep. */
const REFINE_CANDIDATES = 250

const NEXT_TOOLS = [
  new NextTool({ name: "memory.tool.refine", description: "Narrow these results: entity, session_id, min_confidence, occurred_from / occurred_to (POST /v1/refine)." }),
  new NextTool({ name: "memory.tool.raw-search", description: "Search memories and raw conversation turns, unfiltered (POST /v1/search)." }),
  new NextTool({ name: "memory.tool.event-timeline", description: "Bound the results in time with occurred_from / occurred_to to follow events in order." }),
  new NextTool({ name: "memory.tool.evidence-count", description: "total_candidates says how many pieces of evidence matched before the top_k cut." }),
  new NextTool({ name: "memory.tool.entity-timeline", description: "Every memory about an entity, oldest first (GET /v1/entity_timeline)." })
]
const SEARCH_MORE = new NextTool({ name: "memory.tool.search-more", description: "More evidence matched than was returned: raise top_k (up to 50)." })

const toEdge = (userId: string) => (row: EdgeRow) =>
  new Edge({
    edge_id: row.edge_id,
    user_id: userId,
    src_fact_id: row.src_fact_id,
    dst_id: row.dst_id,
    edge_type: row.edge_type,
    predicate_raw: row.predicate ?? "",
    predicate_canonical: row.predicate ?? "",
    // Edges are written by the store itself, certain unless they say otherwise.
    confidence: row.confidence ?? 1,
    metadata: factMetadata(row),
    created_at: row.created_at
  })

const card = ({ fact, roles, sources }: FactWithProvenance) => factCard(fact, sources, roles)

/** The graph routes: entity timelines, exploration from a memory, filtered search. Reads only; no LLM call. */
export class Graph extends Effect.Service<Graph>()("Memory/Graph", {
  effect: Effect.gen(function*() {
    const store = yield* UserStore
    const retrieval = yield* Retrieval

    const timeline = (params: ScopeParams & { readonly entity_id: string }) =>
      Effect.gen(function*() {
        const needle = normalizeName(params.entity_id)
        const facts = yield* store.entityTimeline(params.user_id, { needle, scope: scopeFilter(params), entities: TIMELINE_ENTITIES })
        const items = facts.map(card)
        return new EntityTimeline({ user_id: params.user_id, entity_id: params.entity_id, items, count: items.length })
      }).pipe(span("Graph.timeline"))

    const explore = (params: ScopeParams & { readonly start_id: string; readonly depth: number; readonly limit: number }) =>
      Effect.gen(function*() {
        const explored = yield* store.explore(params.user_id, { startId: params.start_id, scope: scopeFilter(params), depth: params.depth, limit: params.limit })
        const graph = Option.getOrElse(explored, () => ({ nodes: [], edges: [], found: 0 }))
        return new ExploreResult({
          user_id: params.user_id,
          start_id: params.start_id,
          start_type: "memory",
          count: { nodes: graph.nodes.length, edges: graph.found },
          nodes: graph.nodes.map(card),
          edges: graph.edges.map(toEdge(params.user_id))
        })
      }).pipe(span("Graph.explore"))

    const refine = (request: RefineRequest) =>
      Effect.gen(function*() {
        const { degraded, items } = yield* retrieval.search({ ...request, top_k: REFINE_CANDIDATES })
        const matched = items.filter(refineMatcher(request))
        const kept = matched.slice(0, Math.min(request.top_k, REFINE_MAX_ITEMS)).map(evidenceCard)
        const hasMore = matched.length > kept.length
        return new RefineResponse({
          user_id: request.user_id,
          query: request.query,
          items: kept,
          offset: 0,
          next_offset: kept.length,
          has_more: hasMore,
          total_candidates: matched.length,
          filters: new RefineFilters({
            source_types: [], event_types: [], modalities: [], kinds: [], source_roles: [],
            session_id: request.session_id,
            entity: request.entity,
            entity_roles: {},
            status: [],
            quantity_units: [],
            occurred_from: request.occurred_from,
            occurred_to: request.occurred_to,
            created_from: null, created_to: null, valid_from: null, valid_to: null,
            min_confidence: request.min_confidence,
            include_terms: [],
            exclude_terms: []
          }),
          available_next_tools: hasMore ? [SEARCH_MORE, ...NEXT_TOOLS] : NEXT_TOOLS,
          degraded
        })
      }).pipe(span("Graph.refine"))

    return { timeline, explore, refine } as const
  })
}) {}
