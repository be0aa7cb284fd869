import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { VectorQueries } from "./vectors.js"

/**
 * Erases facts for good (a memory and its versions: a handful): their vectors, entity roles, the
 * edges from and to them, their source links and their index rows (by trigger) go with them, and
 * so do the entities no other fact names (their names came from these facts' statements).
 * Answers how many of each were removed.
 */
export const purgeFacts = (sql: SqlClient.SqlClient, facts: ReadonlyArray<{ readonly fact_id: string; readonly seq: number }>) =>
  Effect.gen(function*() {
    const ids = sql.in(facts.map((fact) => fact.fact_id))
    const count = (rows: ReadonlyArray<{ readonly n: number }>) => rows[0]?.n ?? 0
    const roles = count(yield* sql<{ readonly n: number }>`SELECT count(*) AS n FROM fact_entity_roles WHERE fact_id IN ${ids}`)
    const edges = count(yield* sql<{ readonly n: number }>`SELECT count(*) AS n FROM edges WHERE src_fact_id IN ${ids} OR dst_id IN ${ids}`)
    const sources = count(yield* sql<{ readonly n: number }>`SELECT count(*) AS n FROM fact_sources WHERE fact_id IN ${ids}`)
    const named = (yield* sql<{ readonly entity_id: string }>`SELECT DISTINCT entity_id FROM fact_entity_roles WHERE fact_id IN ${ids}`).map((row) => row.entity_id)
    yield* sql`DELETE FROM edges WHERE dst_id IN ${ids}`
    yield* sql`UPDATE facts SET superseded_by = NULL WHERE superseded_by IN ${ids}`
    let vectors = 0
    for (const fact of facts) vectors += yield* VectorQueries(sql).remove("fact", fact.seq)
    // Roles, outgoing edges and source links cascade with the rows.
    yield* sql`DELETE FROM facts WHERE fact_id IN ${ids}`
    if (named.length > 0) {
      yield* sql`DELETE FROM entities WHERE entity_id IN ${sql.in(named)}
                 AND NOT EXISTS (SELECT 1 FROM fact_entity_roles r WHERE r.entity_id = entities.entity_id)`
    }
    return { vectors, fact_entity_roles: roles, fact_edges: edges, fact_sources: sources }
  })
