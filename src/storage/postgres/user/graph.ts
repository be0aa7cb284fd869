import type { SqlClient, SqlError } from "@effect/sql"
import { Effect } from "effect"
import type { EdgeRow, FactRow, ScopeFilter } from "../../../domain/records.js"
import { type EdgeReader, explore, type GraphReader, withProvenance } from "../../graphWalk.js"
import { UserReads } from "./reads.js"
import { FACT_COLUMNS, inList, scopedTo } from "./rows.js"

/** The graph reads over one user's data. Facts of any status but archived (forgotten); scope narrows. */
export const UserGraph = (sql: SqlClient.SqlClient, userId: string) => {
  const reads = UserReads(sql, userId)
  const selectEdges = sql`
    SELECT e.edge_id, e.src_fact_id, e.dst_id, e.edge_type, e.predicate, e.confidence, e.metadata, e.created_at,
      CASE WHEN d.fact_id IS NOT NULL THEN 'fact' WHEN n.entity_id IS NOT NULL THEN 'entity' ELSE 'other' END AS dst_kind
    FROM edges e JOIN facts s ON s.user_id = e.user_id AND s.fact_id = e.src_fact_id
      LEFT JOIN facts d ON d.user_id = e.user_id AND d.fact_id = e.dst_id
      LEFT JOIN entities n ON n.user_id = e.user_id AND n.entity_id = e.dst_id`
  const inScope = (scope: ScopeFilter) =>
    sql`${scopedTo(sql, "s", scope)} AND s.status <> 'archived' AND (d.fact_id IS NULL OR (${scopedTo(sql, "d", scope)} AND d.status <> 'archived'))`
  const edgesReader: EdgeReader<SqlError.SqlError> = {
    edgesOfFacts: (factIds, scope) =>
      factIds.length === 0 ? Effect.succeed([]) : sql<EdgeRow>`${selectEdges}
        WHERE e.user_id = ${userId} AND (${inList(sql, "e.src_fact_id", factIds)} OR ${inList(sql, "e.dst_id", factIds)}) AND ${inScope(scope)}`,
    edgesToEntities: (entityIds, scope, limit) =>
      entityIds.length === 0 ? Effect.succeed([]) : sql<EdgeRow>`${selectEdges}
        WHERE e.user_id = ${userId} AND ${inList(sql, "e.dst_id", entityIds)} AND ${inScope(scope)}
        ORDER BY e.created_at, e.edge_id LIMIT ${limit}`
  }

  const reader: GraphReader<SqlError.SqlError> = {
    ...edgesReader,
    facts: (factIds, scope) => Effect.map(reads.facts(factIds, scope), (rows) => rows.filter((row) => row.status !== "archived")),
    provenance: reads.provenance
  }

  return {
    entityTimeline: (options: { readonly needle: string; readonly scope: ScopeFilter; readonly entities: number }) =>
      Effect.gen(function*() {
        // A name of punctuation only would match every entity: it names none.
        if (options.needle === "") return []
        const entities = (yield* sql<{ readonly entity_id: string }>`
          SELECT entity_id FROM entities WHERE user_id = ${userId} AND strpos(normalized_name, ${options.needle}) > 0
          ORDER BY normalized_name = ${options.needle} DESC, length(normalized_name), normalized_name LIMIT ${options.entities}`).map((row) => row.entity_id)
        if (entities.length === 0) return []
        const facts = yield* sql<FactRow>`
          SELECT ${sql.literal(FACT_COLUMNS)} FROM facts f
          WHERE f.user_id = ${userId} AND f.fact_id IN (SELECT fact_id FROM fact_entity_roles WHERE user_id = ${userId} AND ${inList(sql, "entity_id", entities)})
            AND ${scopedTo(sql, "f", options.scope)} AND f.status <> 'archived'
          ORDER BY f.occurred_at NULLS FIRST, f.seq`
        return yield* withProvenance(reader, facts)
      }),

    explore: (options: { readonly startId: string; readonly scope: ScopeFilter; readonly depth: number; readonly limit: number }) =>
      explore(reader, options)
  }
}
