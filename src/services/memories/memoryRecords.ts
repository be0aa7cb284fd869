import { Clock, Effect, Either } from "effect"
import { IngestFailed } from "../../api/errors.js"
import { Memory } from "../../api/MemoriesApi.js"
import { parseSessionTime } from "../../domain/sessionTime.js"
import { factMetadata, type FactRow, type ScopeFilter } from "../../domain/records.js"

export interface ScopeParams {
  readonly user_id: string
  readonly agent_id?: string | null | undefined
  readonly run_id?: string | null | undefined
  readonly project_id?: string | null | undefined
}

/** "" means unset, as on every route that honours scope keys. */
export const scopeFilter = (params: ScopeParams): ScopeFilter => ({
  agent_id: params.agent_id || null,
  run_id: params.run_id || null,
  project_id: params.project_id || null
})

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
