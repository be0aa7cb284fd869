import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { FactRow, PriorityOrder, StaleEntity } from "../../../domain/records.js"
import { FACT_COLUMNS } from "./retrieval.js"

/** How many current facts about an entity at most go into its profile: the newest. */
const PROFILE_FACTS = 50

/** Queries of entity profiles in one user's store. */
export const ProfileQueries = (sql: SqlClient.SqlClient) => {
  // Stale longest first, most facts first (what changed most, as far as the store can tell), or oldest entity first.
  const ORDER: Record<PriorityOrder, string> = {
    by_staleness: "e.updated_at, e.rowid",
    by_fact_count_delta: "(SELECT count(*) FROM fact_entity_roles r JOIN facts f ON f.fact_id = r.fact_id WHERE r.entity_id = e.entity_id AND f.status = 'active') DESC, e.rowid",
    fifo: "e.rowid"
  }
  return {
    stale: (order: PriorityOrder, limit: number) =>
      sql<StaleEntity>`SELECT e.entity_id, e.name, e.profile FROM entities e WHERE e.profile_stale = 1
                       ORDER BY ${sql.literal(ORDER[order])} LIMIT ${limit}`,

    staleCount: Effect.map(sql<{ readonly n: number }>`SELECT count(*) AS n FROM entities WHERE profile_stale = 1`, (rows) => rows[0]?.n ?? 0),

    /** The entity's current facts, newest first, its own profiles left out. */
    currentFacts: (entityId: string) =>
      sql<FactRow>`SELECT DISTINCT ${sql.literal(FACT_COLUMNS)} FROM fact_entity_roles r JOIN facts f ON f.fact_id = r.fact_id
                   WHERE r.entity_id = ${entityId} AND f.status = 'active' AND f.kind <> 'profile'
                   ORDER BY f.seq DESC LIMIT ${PROFILE_FACTS}`,

    exists: (entityId: string) =>
      Effect.map(sql<{ readonly entity_id: string }>`SELECT entity_id FROM entities WHERE entity_id = ${entityId}`, (rows) => rows.length > 0),

    /** The entity's current profiles, whatever their scopes. */
    currentProfiles: (entityId: string) =>
      sql<FactRow>`SELECT ${sql.literal(FACT_COLUMNS)} FROM fact_entity_roles r JOIN facts f ON f.fact_id = r.fact_id
                   WHERE r.entity_id = ${entityId} AND f.kind = 'profile' AND f.status = 'active' ORDER BY f.seq`,

    /** Archives profiles that nothing replaces. */
    retire: (factIds: ReadonlyArray<string>, now: string) =>
      factIds.length === 0 ? Effect.void : sql`UPDATE facts SET status = 'archived', updated_at = ${now} WHERE fact_id IN ${sql.in(factIds)}`.pipe(Effect.asVoid),

    /** Marks a profile written (or found unneeded): the entity is no longer stale. */
    settle: (entityId: string, profileFactId: string | null, now: string) =>
      sql`UPDATE entities SET profile_stale = 0, profile = coalesce(${profileFactId}, profile), updated_at = ${now} WHERE entity_id = ${entityId}`
  }
}
