import { Effect } from "effect"
import type { EdgeRow, ScopeFilter } from "../domain/records.js"

/** The two edge lookups a walk makes, as a backend answers them. */
export interface EdgeReader<E> {
  /** Edges from or to the given facts whose fact endpoints are all within scope. */
  readonly edgesOfFacts: (factIds: ReadonlyArray<string>, scope: ScopeFilter) => Effect.Effect<ReadonlyArray<EdgeRow>, E>
  /** The first `limit` edges (by created_at, then edge_id) into the given entities whose fact endpoints are within scope. */
  readonly edgesToEntities: (entityIds: ReadonlyArray<string>, scope: ScopeFilter, limit: number) => Effect.Effect<ReadonlyArray<EdgeRow>, E>
}

/** The facts an edge joins: its source, and its destination when that is a fact (not an entity or a span). */
export const factEnds = (edge: EdgeRow) => edge.dst_kind === "fact" ? [edge.src_fact_id, edge.dst_id] : [edge.src_fact_id]

const byCreation = (a: EdgeRow, b: EdgeRow) => a.created_at - b.created_at || (a.edge_id < b.edge_id ? -1 : a.edge_id > b.edge_id ? 1 : 0)

/**
 * Breadth first from a fact, over edges in both directions, level by level. Entities are not
 * nodes: an edge reaching one brings, in the same level, the edges of the other facts linked to
 * it (so fact → entity → fact is one hop), and each entity is crossed once. Within a level edges
 * are ordered by created_at, then edge_id. The walk ends after `depth` levels, or after the level
 * in which `limit` edges were found: the caller cuts to `limit` and reports how many were found
 * (the edges crossing a level's entities are counted up to `limit`).
 */
export const walk = <E>(
  q: EdgeReader<E>,
  startId: string,
  scope: ScopeFilter,
  options: { readonly depth: number; readonly limit: number }
) =>
  Effect.gen(function*() {
    const seenFacts = new Set([startId])
    const seenEntities = new Set<string>()
    const seenEdges = new Set<string>()
    const found: Array<EdgeRow> = []
    let frontier = [startId]
    for (let level = 1; level <= options.depth && frontier.length > 0 && found.length < options.limit; level++) {
      const direct = yield* q.edgesOfFacts(frontier, scope)
      const entities = [...new Set(direct.filter((edge) => edge.dst_kind === "entity").map((edge) => edge.dst_id))]
        .filter((id) => !seenEntities.has(id))
      for (const id of entities) seenEntities.add(id)
      // The level is cut to `limit` in the same order, so more crossed edges than that could never show.
      const crossed = yield* q.edgesToEntities(entities, scope, options.limit)
      const next: Array<string> = []
      for (const edge of [...direct, ...crossed].sort(byCreation)) {
        if (seenEdges.has(edge.edge_id)) continue
        seenEdges.add(edge.edge_id)
        found.push(edge)
        for (const id of factEnds(edge)) {
          if (seenFacts.has(id)) continue
          seenFacts.add(id)
          next.push(id)
        }
      }
      frontier = next
    }
    return found
  })
