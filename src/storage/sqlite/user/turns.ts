import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { spanId, turnId } from "../../../domain/ids.js"
import type { TurnScope } from "../../../domain/records.js"
import { insertBatches } from "./batches.js"

/**
 * Appends turns to a session (created if new), one source span per turn covering it whole.
 * Positions continue after the session's last turn, so a session can arrive in parts.
 */
export const appendTurns = (
  sql: SqlClient.SqlClient,
  input: {
    readonly sessionId: string
    readonly sessionTime: string
    readonly turns: ReadonlyArray<{ readonly role: string; readonly content: string }>
    readonly scope: TurnScope
    readonly now: string
  }
) =>
  Effect.gen(function*() {
    yield* sql`INSERT INTO sessions (session_id, session_time, created_at)
               VALUES (${input.sessionId}, ${input.sessionTime}, ${input.now})
               ON CONFLICT (session_id) DO NOTHING`
    const [last] = yield* sql<{ readonly position: number | null }>`
      SELECT max(position) AS position FROM turns WHERE session_id = ${input.sessionId}`
    const first = (last?.position ?? 0) + 1
    const rows = input.turns.map((turn, i) => ({
      turn_id: turnId(input.sessionId, first + i),
      session_id: input.sessionId,
      position: first + i,
      role: turn.role,
      content: turn.content,
      ...input.scope,
      created_at: input.now
    }))
    for (const batch of insertBatches(rows)) {
      yield* sql`INSERT INTO turns ${sql.insert(batch)}`
      yield* sql`INSERT INTO spans ${
        sql.insert(batch.map((row) => ({
          span_id: spanId(input.sessionId, row.position),
          turn_id: row.turn_id,
          start_offset: 0,
          end_offset: row.content.length
        })))
      }`
    }
    const seqs = yield* sql<{ readonly seq: number }>`
      SELECT seq FROM turns WHERE session_id = ${input.sessionId} AND position >= ${first} ORDER BY position`
    return { written: rows.length, firstPosition: first, seqs: seqs.map((row) => row.seq) }
  })
