import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { EdgeRow, FactRow, ScopeFilter } from "../../../domain/records.js"
import { inBatches } from "./batches.js"
import { FACT_COLUMNS, RetrievalQueries, scopedTo } from "./retrieval.js"

/** Queries of the graph routes over one user's store. Facts of any status but archived (forgotten); scope narrows. */
export const GraphQueries = (sql: SqlClient.SqlClient) => {
  const retrieval = RetrievalQueries(sql)
  // Each lookup goes through one index (src or dst): an OR across both would scan the table.
  const selectEdges = sql`
    SELECT e.edge_id, e.src_fact_id, e.dst_id, e.edge_type, e.predicate, e.confidence, e.metadata, e.created_at,
      CASE WHEN d.fact_id IS NOT NULL THEN 'fact' WHEN n.entity_id IS NOT NULL THEN 'entity' ELSE 'other' END AS dst_kind
    FROM edges e JOIN facts s ON s.fact_id = e.src_fact_id
      LEFT JOIN facts d ON d.fact_id = e.dst_id
      LEFT JOIN entities n ON n.entity_id = e.dst_id`
  const inScope = (scope: ScopeFilter) =>
    sql`${scopedTo(sql, "s", scope)} AND s.status <> 'archived' AND (d.fact_id IS NULL OR (${scopedTo(sql, "d", scope)} AND d.status <> 'archived'))`
  return {
    /** Entities whose normalized name contains the needle: an exact match first, then shorter names. */
    entitiesMatching: (needle: string, limit: number) =>
      Effect.map(
        sql<{ readonly entity_id: string }>`
          SELECT entity_id FROM entities WHERE instr(normalized_name, ${needle}) > 0
          ORDER BY normalized_name = ${needle} DESC, length(normalized_name), normalized_name LIMIT ${limit}`,
        (rows) => rows.map((row) => row.entity_id)
      ),

    /** The facts linked to any of the entities, undated first, then by occurred_at, ties in insertion order. */
    factsOfEntities: (entityIds: ReadonlyArray<string>, scope: ScopeFilter) =>
      sql<FactRow>`
        SELECT ${sql.literal(FACT_COLUMNS)} FROM facts f
        WHERE f.fact_id IN (SELECT fact_id FROM fact_entity_roles WHERE entity_id IN ${sql.in(entityIds)})
          AND ${scopedTo(sql, "f", scope)} AND f.status <> 'archived'
        ORDER BY f.occurred_at, f.seq`,

    factsByIds: (factIds: ReadonlyArray<string>, scope: ScopeFilter) =>
      inBatches(factIds, (chunk) =>
        sql<FactRow>`SELECT ${sql.literal(FACT_COLUMNS)} FROM facts f
                      WHERE f.fact_id IN ${sql.in(chunk)} AND ${scopedTo(sql, "f", scope)} AND f.status <> 'archived'`),

    /** Edges from or to the given facts whose fact endpoints are all within scope. */
    edgesOfFacts: (factIds: ReadonlyArray<string>, scope: ScopeFilter) =>
      factIds.length === 0
        ? Effect.succeed([] as ReadonlyArray<EdgeRow>)
        : sql<EdgeRow>`${selectEdges}
          WHERE e.edge_id IN (SELECT edge_id FROM edges WHERE src_fact_id IN ${sql.in(factIds)}
                              UNION SELECT edge_id FROM edges WHERE dst_id IN ${sql.in(factIds)})
            AND ${inScope(scope)}`,

    /**
     * The first edges (by created_at, then edge_id) into the given entities whose fact endpoints
     * are within scope: a popular entity links to thousands of facts, of which a walk shows a few.
     */
    edgesToEntities: (entityIds: ReadonlyArray<string>, scope: ScopeFilter, limit: number) =>
      entityIds.length === 0
        ? Effect.succeed([] as ReadonlyArray<EdgeRow>)
        : sql<EdgeRow>`${selectEdges} WHERE e.dst_id IN ${sql.in(entityIds)} AND ${inScope(scope)}
          ORDER BY e.created_at, e.edge_id LIMIT ${limit}`,

    provenance: retrieval.provenance
  }
}
