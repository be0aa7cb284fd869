import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { explore as exploreFrom, withProvenance } from "../../graphWalk.js"
import type { ScopeFilter } from "../../../domain/records.js"
import { GraphQueries } from "./graph.js"

/** Every fact of the entities whose names contain the needle, oldest first, with provenance. */
export const entityTimeline = (sql: SqlClient.SqlClient, options: { readonly needle: string; readonly scope: ScopeFilter; readonly entities: number }) =>
  Effect.gen(function*() {
    const q = GraphQueries(sql)
    // A name of punctuation only would match every entity: it names none.
    const entities = options.needle === "" ? [] : yield* q.entitiesMatching(options.needle, options.entities)
    return entities.length === 0 ? [] : yield* withProvenance(q, yield* q.factsOfEntities(entities, options.scope))
  })

/** The walk from a fact within scope, over this store's edges. */
export const explore = (
  sql: SqlClient.SqlClient,
  options: { readonly startId: string; readonly scope: ScopeFilter; readonly depth: number; readonly limit: number }
) => {
  const q = GraphQueries(sql)
  return exploreFrom({ ...q, facts: q.factsByIds }, options)
}
