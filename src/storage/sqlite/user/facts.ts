import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { FactRow, ScopeFilter } from "../../../domain/records.js"
import { inBatches } from "./batches.js"

const columns = `seq, fact_id, content, kind, status, session_id, occurred_at, valid_from, valid_until,
  confidence, metadata, agent_id, run_id, project_id, superseded_by`

/** Kinds whose truth ends at valid_until; once it has passed they are no longer listed. */
const EXPIRING_KINDS = ["state", "preference", "profile"]

export const FactQueries = (sql: SqlClient.SqlClient) => {
  const scoped = (scope: ScopeFilter) =>
    sql.and([
      sql`status = 'active'`,
      ...(["agent_id", "run_id", "project_id"] as const).flatMap((key) =>
        scope[key] === null ? [] : [sql`(${sql(key)} IS NULL OR ${sql(key)} = ${scope[key]})`])
    ])
  const current = (scope: ScopeFilter, now: string) =>
    sql`${scoped(scope)} AND NOT (kind IN ${sql.in(EXPIRING_KINDS)} AND valid_until IS NOT NULL AND valid_until < ${now})`
  return {
    /** Current memories in insertion order, with how many there are in all. */
    listCurrent: (scope: ScopeFilter, now: string, offset: number, limit: number) =>
      Effect.all({
        rows: sql<FactRow>`SELECT ${sql.literal(columns)} FROM facts WHERE ${current(scope, now)} ORDER BY seq LIMIT ${limit} OFFSET ${offset}`,
        total: Effect.map(sql<{ readonly n: number }>`SELECT count(*) AS n FROM facts WHERE ${current(scope, now)}`, (rows) => rows[0]?.n ?? 0)
      }),

    find: (factId: string) =>
      Effect.map(sql<FactRow>`SELECT ${sql.literal(columns)} FROM facts WHERE fact_id = ${factId}`, (rows) => rows[0]),

    /** Facts by id, in no particular order (ids not found left out). */
    findMany: (factIds: ReadonlyArray<string>) =>
      inBatches(factIds, (batch) => sql<FactRow>`SELECT ${sql.literal(columns)} FROM facts WHERE fact_id IN ${sql.in(batch)}`)
  }
}
