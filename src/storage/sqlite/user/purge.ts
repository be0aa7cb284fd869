import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { inBatches } from "./batches.js"
import { VectorQueries } from "./vectors.js"

const counted = (rows: ReadonlyArray<{ readonly n: number }>) => rows.reduce((sum, row) => sum + row.n, 0)

/**
 * Erases facts for good (a memory and its versions): their vectors, entity roles, the edges from
 * and to them, their source links and their index rows (by trigger) go with them, and so do the
 * entities no other fact names (their names came from these facts' statements). Answers how many
 * of each were removed. The ids go in parts (a memory may have more versions than one statement
 * binds); an edge between versions of two parts goes, and counts, with the first.
 */
export const purgeFacts = (sql: SqlClient.SqlClient, facts: ReadonlyArray<{ readonly fact_id: string; readonly seq: number }>) =>
  Effect.gen(function*() {
    const ids = facts.map((fact) => fact.fact_id)
    const roles = counted(yield* inBatches(ids, (batch) => sql<{ readonly n: number }>`SELECT count(*) AS n FROM fact_entity_roles WHERE fact_id IN ${sql.in(batch)}`))
    const sources = counted(yield* inBatches(ids, (batch) => sql<{ readonly n: number }>`SELECT count(*) AS n FROM fact_sources WHERE fact_id IN ${sql.in(batch)}`))
    const named = yield* inBatches(ids, (batch) =>
      sql<{ readonly entity_id: string }>`SELECT DISTINCT entity_id FROM fact_entity_roles WHERE fact_id IN ${sql.in(batch)}`)
    const edges = yield* inBatches(ids, (batch) =>
      sql<{ readonly edge_id: string }>`DELETE FROM edges WHERE src_fact_id IN ${sql.in(batch)} OR dst_id IN ${sql.in(batch)} RETURNING edge_id`)
    yield* inBatches(ids, (batch) => sql`UPDATE facts SET superseded_by = NULL WHERE superseded_by IN ${sql.in(batch)}`)
    let vectors = 0
    for (const fact of facts) vectors += yield* VectorQueries(sql).remove("fact", fact.seq)
    // Roles and source links cascade with the rows.
    yield* inBatches(ids, (batch) => sql`DELETE FROM facts WHERE fact_id IN ${sql.in(batch)}`)
    yield* inBatches([...new Set(named.map((row) => row.entity_id))], (batch) =>
      sql`DELETE FROM entities WHERE entity_id IN ${sql.in(batch)}
          AND NOT EXISTS (SELECT 1 FROM fact_entity_roles r WHERE r.entity_id = entities.entity_id)`)
    return { vectors, fact_entity_roles: roles, fact_edges: edges.length, fact_sources: sources }
  })
