import { Clock, Effect, Either } from "effect"
import { IngestFailed, NotFound } from "../../api/errors.js"
import { Memory } from "../../api/MemoriesApi.js"
import { parseSessionTime } from "../../domain/sessionTime.js"
import { factMetadata, type FactRow, inScope, SCOPE_KEYS, type ScopeFilter, scopeOrElse } from "../../domain/records.js"

/** The scope keys of a request, as its body or query gives them. */
export interface ScopeKeys {
  readonly agent_id?: string | null | undefined
  readonly run_id?: string | null | undefined
  readonly project_id?: string | null | undefined
}

export interface ScopeParams extends ScopeKeys {
  readonly user_id: string
}

/** "" means unset, as on every route that honours scope keys. */
export const scopeFilter = (params: ScopeKeys): ScopeFilter => ({
  agent_id: params.agent_id || null,
  run_id: params.run_id || null,
  project_id: params.project_id || null
})

/** Whether a request sets any scope key, i.e. narrows at all. */
export const narrows = (scope: ScopeFilter) => SCOPE_KEYS.some((key) => scope[key] !== null)

export interface CombinedScope {
  readonly admits: (row: ScopeFilter) => boolean
  readonly filter: ScopeFilter
}

/**
 * Scope keys given in two places (PATCH's body and query): each narrows, so a row must be within
 * both. Where both set a key, the body's is the one the store checks again inside its write
 * (stamps never change, so the check made here holds there).
 */
export const combinedScope = (body: ScopeKeys, query: ScopeKeys): CombinedScope => {
  const scopes = [scopeFilter(body), scopeFilter(query)] as const
  return {
    admits: (row: ScopeFilter) => scopes.every((scope) => inScope(row, scope)),
    filter: scopeOrElse(...scopes)
  }
}

/** What GET answers for a memory that is absent, archived, or outside the request's scope. */
export const memoryNotFound = (memoryId: string) => new NotFound({ message: `memory '${memoryId}' not found`, details: {} })

export const toMemory = (userId: string, row: FactRow) =>
  new Memory({
    id: row.fact_id,
    user_id: userId,
    agent_id: row.agent_id,
    run_id: row.run_id,
    project_id: row.project_id,
    content: row.content,
    kind: row.kind,
    status: row.status,
    session_id: row.session_id,
    occurred_at: row.occurred_at,
    valid_from: row.valid_from,
    valid_until: row.valid_until,
    confidence: row.confidence,
    metadata: factMetadata(row)
  })

/** `session_time` as sent, resolved against the clock; an unreadable one is 400 ingest_failed. */
export const resolveSessionTime = (value: string | number | null | undefined) =>
  Effect.flatMap(Clock.currentTimeMillis, (millis) =>
    Either.match(parseSessionTime(value, new Date(millis)), {
      onLeft: (input) =>
        Effect.fail(new IngestFailed({
          message: `session_time ${JSON.stringify(input)} is not a date: use ISO-8601 (full or partial), epoch seconds, or YYYY/MM/DD (Weekday) HH:MM`,
          details: { value: input }
        })),
      onRight: Effect.succeed
    }))
