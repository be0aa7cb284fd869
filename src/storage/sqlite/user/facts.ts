import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export interface FactRow {
  readonly seq: number
  readonly fact_id: string
  readonly content: string
  readonly kind: string
  readonly status: string
  readonly session_id: string | null
  readonly occurred_at: string | null
  readonly valid_from: string | null
  readonly valid_until: string | null
  readonly confidence: number | null
  readonly metadata: string
  readonly agent_id: string | null
  readonly run_id: string | null
  readonly project_id: string | null
  readonly superseded_by: string | null
}

/** A fact's metadata column (always a JSON object as written here); anything else reads as no metadata. */
export const factMetadata = (row: Pick<FactRow, "metadata">): Record<string, unknown> => {
  const parsed: unknown = JSON.parse(row.metadata)
  return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? parsed as Record<string, unknown> : {}
}

/** Narrowing scope: a fact stamped with another value is excluded; an unstamped fact matches. */
export interface ScopeFilter {
  readonly agent_id: string | null
  readonly run_id: string | null
  readonly project_id: string | null
}

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
      Effect.map(sql<FactRow>`SELECT ${sql.literal(columns)} FROM facts WHERE fact_id = ${factId}`, (rows) => rows[0])
  }
}
