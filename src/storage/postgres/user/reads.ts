import type { SqlClient, Statement } from "@effect/sql"
import { Effect } from "effect"
import {
  type EventRow,
  type FactRole,
  type FactRow,
  type FactSource,
  type Page,
  type PriorityOrder,
  type ScopeFilter,
  type StaleEntity,
  type TurnRow,
  turnRow
} from "../../../domain/records.js"
import { byParts, EVENT_COLUMNS, FACT_COLUMNS, inList, scopedTo, TURN_COLUMNS } from "./rows.js"

/** Kinds whose truth ends at valid_until; once it has passed they are no longer listed. */
const EXPIRING_KINDS = ["state", "preference", "profile"]

/** How many current facts about an entity at most go into its profile: the newest. */
const PROFILE_FACTS = 50

/** Reads of one user's data; every query names the user. */
export const UserReads = (sql: SqlClient.SqlClient, userId: string) => {
  const visible = (statuses: ReadonlyArray<string>) => inList(sql, "f.status", statuses)
  const limitTo = (limit: number | null) => limit === null ? sql`` : sql`LIMIT ${limit}`
  return {
    fact: (factId: string) =>
      Effect.map(sql<FactRow>`SELECT ${sql.literal(FACT_COLUMNS)} FROM facts f WHERE f.user_id = ${userId} AND f.fact_id = ${factId}`, (rows) => rows[0]),

    facts: (factIds: ReadonlyArray<string>, scope: ScopeFilter | null = null) =>
      byParts(factIds, (part) =>
        sql<FactRow>`SELECT ${sql.literal(FACT_COLUMNS)} FROM facts f
                     WHERE f.user_id = ${userId} AND ${inList(sql, "f.fact_id", part)} AND ${scope === null ? sql`TRUE` : scopedTo(sql, "f", scope)}`),

    /**
     * The facts `ranked` names (a statement answering `seq` and `rank`, best the lowest), best
     * first, those the statuses and scope hide left out; `limit` of them, or all.
     */
    factsRanked: (ranked: Statement.Fragment, scope: ScopeFilter, statuses: ReadonlyArray<string>, limit: number | null) =>
      sql<FactRow>`SELECT ${sql.literal(FACT_COLUMNS)} FROM (${ranked}) AS r JOIN facts f ON f.user_id = ${userId} AND f.seq = r.seq
                   WHERE ${visible(statuses)} AND ${scopedTo(sql, "f", scope)} ORDER BY r.rank, r.seq ${limitTo(limit)}`,

    /** The turns `ranked` names, as `factsRanked` reads facts, each with the rank it was given. */
    turnsRanked: (ranked: Statement.Fragment, scope: ScopeFilter, limit: number | null) =>
      Effect.map(
        sql<TurnRow & { readonly ranked_as: number }>`SELECT ${sql.literal(TURN_COLUMNS)}, r.rank AS ranked_as FROM (${ranked}) AS r
                   JOIN turns t ON t.user_id = ${userId} AND t.seq = r.seq
                   JOIN sessions s ON s.user_id = t.user_id AND s.session_id = t.session_id
                   WHERE ${scopedTo(sql, "t", scope)} ORDER BY r.rank, r.seq ${limitTo(limit)}`,
        (rows) => rows.map((found) => ({ row: turnRow(found), rank: found.ranked_as }))
      ),

    entitiesOf: (factId: string) =>
      sql<{ readonly name: string; readonly role: string }>`
        SELECT e.name, r.role FROM fact_entity_roles r JOIN entities e ON e.user_id = r.user_id AND e.entity_id = r.entity_id
        WHERE r.user_id = ${userId} AND r.fact_id = ${factId} ORDER BY r.role, e.name`,

    currentFacts: (options: { readonly scope: ScopeFilter; readonly now: string; readonly offset: number; readonly limit: number }) => {
      const current = sql`f.user_id = ${userId} AND f.status = 'active' AND ${scopedTo(sql, "f", options.scope)}
        AND NOT (f.kind IN ${sql.in(EXPIRING_KINDS)} AND f.valid_until IS NOT NULL AND f.valid_until < ${options.now})`
      return Effect.all({
        rows: sql<FactRow>`SELECT ${sql.literal(FACT_COLUMNS)} FROM facts f WHERE ${current} ORDER BY f.seq LIMIT ${options.limit} OFFSET ${options.offset}`,
        total: Effect.map(sql<{ readonly n: number }>`SELECT count(*) AS n FROM facts f WHERE ${current}`, (rows) => rows[0]?.n ?? 0)
      }) satisfies Effect.Effect<Page<FactRow>, unknown>
    },

    events: (options: { readonly type: string | null; readonly scope: ScopeFilter; readonly offset: number; readonly limit: number }) => {
      const where = sql`e.user_id = ${userId} AND ${options.type === null ? sql`TRUE` : sql`e.type = ${options.type}`} AND ${scopedTo(sql, "e", options.scope)}`
      return Effect.all({
        rows: sql<EventRow>`SELECT ${sql.literal(EVENT_COLUMNS)} FROM events e
                            WHERE ${where} ORDER BY e.seq DESC LIMIT ${options.limit} OFFSET ${options.offset}`,
        total: Effect.map(sql<{ readonly n: number }>`SELECT count(*) AS n FROM events e WHERE ${where}`, (rows) => rows[0]?.n ?? 0)
      })
    },

    appliedJob: (jobId: string) =>
      Effect.map(sql<{ readonly result: string }>`SELECT result FROM applied_jobs WHERE user_id = ${userId} AND job_id = ${jobId}`, (rows) => rows[0]?.result),

    // A memory's sources and roles come in one part with it, so each keeps its order.
    provenance: (factIds: ReadonlyArray<string>) =>
      Effect.all({
        sources: byParts(factIds, (part) =>
          sql<FactSource>`
            SELECT fs.fact_id, fs.span_id, t.turn_id, t.session_id, t.role, t.content, s.session_time
            FROM fact_sources fs JOIN spans sp ON sp.user_id = fs.user_id AND sp.span_id = fs.span_id
            JOIN turns t ON t.user_id = sp.user_id AND t.turn_id = sp.turn_id
            JOIN sessions s ON s.user_id = t.user_id AND s.session_id = t.session_id
            WHERE fs.user_id = ${userId} AND ${inList(sql, "fs.fact_id", part)} ORDER BY t.seq`),
        roles: byParts(factIds, (part) =>
          sql<FactRole>`
            SELECT r.fact_id, r.role, e.name FROM fact_entity_roles r JOIN entities e ON e.user_id = r.user_id AND e.entity_id = r.entity_id
            WHERE r.user_id = ${userId} AND ${inList(sql, "r.fact_id", part)} ORDER BY r.fact_id, r.role, e.name`)
      }),

    staleEntities: (order: PriorityOrder, limit: number) => {
      // Stale longest first, most current facts first, or oldest entity first.
      const orderBy: Record<PriorityOrder, string> = {
        by_staleness: "e.updated_at, e.seq",
        by_fact_count_delta: `(SELECT count(*) FROM fact_entity_roles r JOIN facts f ON f.user_id = r.user_id AND f.fact_id = r.fact_id
          WHERE r.user_id = e.user_id AND r.entity_id = e.entity_id AND f.status = 'active') DESC, e.seq`,
        fifo: "e.seq"
      }
      return sql<StaleEntity>`SELECT e.entity_id, e.name, e.profile FROM entities e WHERE e.user_id = ${userId} AND e.profile_stale
                              ORDER BY ${sql.literal(orderBy[order])} LIMIT ${limit}`
    },

    staleCount: Effect.map(
      sql<{ readonly n: number }>`SELECT count(*) AS n FROM entities WHERE user_id = ${userId} AND profile_stale`,
      (rows) => rows[0]?.n ?? 0
    ),

    /** The entity's current profiles, whatever their scopes. */
    currentProfiles: (entityId: string) =>
      sql<FactRow>`SELECT ${sql.literal(FACT_COLUMNS)} FROM fact_entity_roles r JOIN facts f ON f.user_id = r.user_id AND f.fact_id = r.fact_id
                   WHERE r.user_id = ${userId} AND r.entity_id = ${entityId} AND f.kind = 'profile' AND f.status = 'active' ORDER BY f.seq`,

    profileFacts: (entityId: string) =>
      sql<FactRow>`SELECT DISTINCT ${sql.literal(FACT_COLUMNS)} FROM fact_entity_roles r JOIN facts f ON f.user_id = r.user_id AND f.fact_id = r.fact_id
                   WHERE r.user_id = ${userId} AND r.entity_id = ${entityId} AND f.status = 'active' AND f.kind <> 'profile'
                   ORDER BY f.seq DESC LIMIT ${PROFILE_FACTS}`
  }
}
