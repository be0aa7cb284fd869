import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { EventRow } from "../../../domain/records.js"
import type { OutboxEntry } from "../../UserStore.js"
import { EVENT_COLUMNS } from "./rows.js"

interface HeadRow extends EventRow {
  readonly seq: number
  readonly attempts: number
  readonly next_attempt_at: number
}

const toEntry = ({ attempts, next_attempt_at, seq, ...event }: HeadRow): OutboxEntry => ({ seq, attempts, nextAttemptAt: next_attempt_at, event })

/** A user's webhook outbox in the shared tables. */
export const UserOutbox = (sql: SqlClient.SqlClient, userId: string) => ({
  head: (limit: number) =>
    Effect.all({
      rows: sql<HeadRow>`SELECT o.event_seq AS seq, o.attempts, o.next_attempt_at, ${sql.literal(EVENT_COLUMNS)}
                         FROM webhook_outbox o JOIN events e ON e.user_id = o.user_id AND e.seq = o.event_seq
                         WHERE o.user_id = ${userId} ORDER BY o.event_seq LIMIT ${limit}`,
      total: Effect.map(sql<{ readonly n: number }>`SELECT count(*) AS n FROM webhook_outbox WHERE user_id = ${userId}`, (rows) => rows[0]?.n ?? 0)
    }).pipe(Effect.map(({ rows, total }) => ({ entries: rows.map(toEntry), total }))),
  removeThrough: (seq: number) => sql`DELETE FROM webhook_outbox WHERE user_id = ${userId} AND event_seq <= ${seq}`.pipe(Effect.asVoid),
  postpone: (seq: number, attempts: number, nextAttemptAt: number) =>
    sql`UPDATE webhook_outbox SET attempts = ${attempts}, next_attempt_at = ${nextAttemptAt}
        WHERE user_id = ${userId} AND event_seq = ${seq}`.pipe(Effect.asVoid),
  trim: (keep: number) =>
    sql<{ readonly event_seq: number }>`
      DELETE FROM webhook_outbox WHERE user_id = ${userId} AND event_seq <= (
        SELECT event_seq FROM webhook_outbox WHERE user_id = ${userId} ORDER BY event_seq DESC LIMIT 1 OFFSET ${keep})
      RETURNING event_seq`.pipe(Effect.map((rows) => rows.length)),
  pending: sql<EventRow>`SELECT ${sql.literal(EVENT_COLUMNS)} FROM webhook_outbox o JOIN events e ON e.user_id = o.user_id AND e.seq = o.event_seq
                         WHERE o.user_id = ${userId} ORDER BY o.event_seq`
})

/** Every user with outbox entries, and when their first is due. */
export const outboxUsers = (sql: SqlClient.SqlClient) =>
  sql<{ readonly user_id: string; readonly due: number }>`SELECT user_id, min(next_attempt_at) AS due FROM webhook_outbox GROUP BY user_id`.pipe(
    Effect.map((rows) => rows.map((row) => ({ userId: row.user_id, due: row.due })))
  )
