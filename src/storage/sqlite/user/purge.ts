import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { VectorQueries } from "./vectors.js"

/**
 * Erases a fact for good: its vector, its entity roles, the edges from and to it, its source
 * links and its index rows (by trigger) go with it. Answers how many of each were removed.
 */
export const purgeFact = (sql: SqlClient.SqlClient, fact: { readonly fact_id: string; readonly seq: number }) =>
  Effect.gen(function*() {
    const factId = fact.fact_id
    const count = (rows: ReadonlyArray<{ readonly n: number }>) => rows[0]?.n ?? 0
    const roles = count(yield* sql<{ readonly n: number }>`SELECT count(*) AS n FROM fact_entity_roles WHERE fact_id = ${factId}`)
    const edges = count(yield* sql<{ readonly n: number }>`SELECT count(*) AS n FROM edges WHERE src_fact_id = ${factId} OR dst_id = ${factId}`)
    const sources = count(yield* sql<{ readonly n: number }>`SELECT count(*) AS n FROM fact_sources WHERE fact_id = ${factId}`)
    yield* sql`DELETE FROM edges WHERE dst_id = ${factId}`
    yield* sql`UPDATE facts SET superseded_by = NULL WHERE superseded_by = ${factId}`
    const vectors = yield* VectorQueries(sql).remove("fact", fact.seq)
    // Roles, outgoing edges and source links cascade with the row.
    yield* sql`DELETE FROM facts WHERE fact_id = ${factId}`
    return { vectors, fact_entity_roles: roles, fact_edges: edges, fact_sources: sources }
  })
