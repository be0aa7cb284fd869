import { Effect, Option } from "effect"
import type { EdgeRow, FactRow, Provenance, ScopeFilter } from "../domain/records.js"
import type { FactWithProvenance } from "./UserStore.js"

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

/** What the graph reads need of a backend: the walk's edge lookups, facts by id within scope, and provenance. */
export interface GraphReader<E> extends EdgeReader<E> {
  readonly facts: (factIds: ReadonlyArray<string>, scope: ScopeFilter) => Effect.Effect<ReadonlyArray<FactRow>, E>
  readonly provenance: (factIds: ReadonlyArray<string>) => Effect.Effect<Provenance, E>
}

const byFact = <T extends { readonly fact_id: string }>(rows: ReadonlyArray<T>) => {
  const groups = new Map<string, Array<T>>()
  for (const row of rows) {
    const group = groups.get(row.fact_id)
    if (group === undefined) groups.set(row.fact_id, [row])
    else group.push(row)
  }
  return groups
}

/** Facts in the order given, each with its sources and roles. */
export const withProvenance = <E>(reader: Pick<GraphReader<E>, "provenance">, facts: ReadonlyArray<FactRow>) =>
  Effect.map(reader.provenance(facts.map((fact) => fact.fact_id)), ({ roles, sources }): ReadonlyArray<FactWithProvenance> => {
    const sourcesOf = byFact(sources), rolesOf = byFact(roles)
    return facts.map((fact) => ({ fact, sources: sourcesOf.get(fact.fact_id) ?? [], roles: rolesOf.get(fact.fact_id) ?? [] }))
  })

/** The walk from a fact within scope: the edges found (the first `limit` kept) and the facts they join, the start first. */
export const explore = <E>(
  reader: GraphReader<E>,
  options: { readonly startId: string; readonly scope: ScopeFilter; readonly depth: number; readonly limit: number }
) =>
  Effect.gen(function*() {
    const { scope } = options
    const [start] = yield* reader.facts([options.startId], scope)
    if (start === undefined) return Option.none()
    const found = yield* walk(reader, start.fact_id, scope, options)
    const edges = found.slice(0, options.limit)
    const order = [...new Set([start.fact_id, ...edges.flatMap(factEnds)])]
    const rows = new Map((yield* reader.facts(order, scope)).map((row) => [row.fact_id, row]))
    const nodes = yield* withProvenance(reader, order.flatMap((id) => rows.get(id) ?? []))
    return Option.some({ found: found.length, edges, nodes })
  })
