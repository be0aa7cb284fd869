import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { FactRow, ScopeFilter } from "./facts.js"
import { FACT_COLUMNS, RetrievalQueries, scopedTo } from "./retrieval.js"

/** An edge with what its destination is: only fact endpoints are walked on and shown as nodes. */
export interface EdgeRow {
  readonly edge_id: string
  readonly src_fact_id: string
  readonly dst_id: string
  readonly edge_type: string
  readonly predicate: string | null
  readonly confidence: number | null
  readonly metadata: string
  readonly created_at: number
  readonly dst_kind: "fact" | "entity" | "other"
}

/** Ids per IN list, well under SQLite's bound on parameters. */
const CHUNK = 500

const chunked = <A, E>(ids: ReadonlyArray<string>, query: (chunk: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<A>, E>) => {
  const chunks: Array<ReadonlyArray<string>> = []
  for (let i = 0; i < ids.length; i += CHUNK) chunks.push(ids.slice(i, i + CHUNK))
  return Effect.map(Effect.forEach(chunks, query), (parts) => parts.flat())
}

/** Queries of the graph routes over one user's store. Facts of any status; scope narrows. */
export const GraphQueries = (sql: SqlClient.SqlClient) => {
  const retrieval = RetrievalQueries(sql)
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
          AND ${scopedTo(sql, "f", scope)}
        ORDER BY f.occurred_at, f.seq`,

    factsByIds: (factIds: ReadonlyArray<string>, scope: ScopeFilter) =>
      chunked(factIds, (chunk) =>
        sql<FactRow>`SELECT ${sql.literal(FACT_COLUMNS)} FROM facts f WHERE f.fact_id IN ${sql.in(chunk)} AND ${scopedTo(sql, "f", scope)}`),

    /**
     * Edges from or to the given facts, and edges to the given entities, whose fact endpoints are
     * all within scope.
     */
    edgesTouching: (ends: { readonly facts: ReadonlyArray<string>; readonly entities: ReadonlyArray<string> }, scope: ScopeFilter) => {
      const into = [...ends.facts, ...ends.entities]
      if (into.length === 0) return Effect.succeed([] as ReadonlyArray<EdgeRow>)
      const from = ends.facts.length === 0 ? sql`0 = 1` : sql`e.src_fact_id IN ${sql.in(ends.facts)}`
      return sql<EdgeRow>`
        SELECT e.edge_id, e.src_fact_id, e.dst_id, e.edge_type, e.predicate, e.confidence, e.metadata, e.created_at,
          CASE WHEN d.fact_id IS NOT NULL THEN 'fact' WHEN n.entity_id IS NOT NULL THEN 'entity' ELSE 'other' END AS dst_kind
        FROM edges e JOIN facts s ON s.fact_id = e.src_fact_id
          LEFT JOIN facts d ON d.fact_id = e.dst_id
          LEFT JOIN entities n ON n.entity_id = e.dst_id
        WHERE (${from} OR e.dst_id IN ${sql.in(into)})
          AND ${scopedTo(sql, "s", scope)} AND (d.fact_id IS NULL OR ${scopedTo(sql, "d", scope)})`
    },

    /** The source turns and entity roles of facts, for their cards. */
    provenance: (factIds: ReadonlyArray<string>) =>
      Effect.all({
        sources: chunked(factIds, retrieval.sources),
        roles: chunked(factIds, retrieval.roles)
      })
  }
}
