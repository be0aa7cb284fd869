import type { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { factEnds, walk } from "../../graphWalk.js"
import type { FactRow, ScopeFilter } from "../../../domain/records.js"
import type { FactWithProvenance } from "../../UserStore.js"
import { GraphQueries } from "./graph.js"

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
const withProvenance = (q: ReturnType<typeof GraphQueries>, facts: ReadonlyArray<FactRow>) =>
  Effect.map(q.provenance(facts.map((fact) => fact.fact_id)), ({ roles, sources }): ReadonlyArray<FactWithProvenance> => {
    const sourcesOf = byFact(sources), rolesOf = byFact(roles)
    return facts.map((fact) => ({ fact, sources: sourcesOf.get(fact.fact_id) ?? [], roles: rolesOf.get(fact.fact_id) ?? [] }))
  })

/** Every fact of the entities whose names contain the needle, oldest first, with provenance. */
export const entityTimeline = (sql: SqlClient.SqlClient, options: { readonly needle: string; readonly scope: ScopeFilter; readonly entities: number }) =>
  Effect.gen(function*() {
    const q = GraphQueries(sql)
    // A name of punctuation only would match every entity: it names none.
    const entities = options.needle === "" ? [] : yield* q.entitiesMatching(options.needle, options.entities)
    return entities.length === 0 ? [] : yield* withProvenance(q, yield* q.factsOfEntities(entities, options.scope))
  })

/** The walk from a fact within scope: the edges found (the first `limit` kept) and the facts they join, the start first. */
export const explore = (
  sql: SqlClient.SqlClient,
  options: { readonly startId: string; readonly scope: ScopeFilter; readonly depth: number; readonly limit: number }
) =>
  Effect.gen(function*() {
    const q = GraphQueries(sql)
    const { scope } = options
    const [start] = yield* q.factsByIds([options.startId], scope)
    if (start === undefined) return Option.none()
    const found = yield* walk(q, start.fact_id, scope, options)
    const edges = found.slice(0, options.limit)
    const order = [...new Set([start.fact_id, ...edges.flatMap(factEnds)])]
    const rows = new Map((yield* q.factsByIds(order, scope)).map((row) => [row.fact_id, row]))
    const nodes = yield* withProvenance(q, order.flatMap((id) => rows.get(id) ?? []))
    return Option.some({ found: found.length, edges, nodes })
  })
