import type { SqlClient } from "@effect/sql"
import Database from "better-sqlite3"
import { Effect } from "effect"
import type { EventRow } from "../../../domain/records.js"
import type { OutboxEntry } from "../../UserStore.js"
import { EVENT_COLUMNS } from "./events.js"

interface HeadRow extends EventRow {
  readonly seq: number
  readonly attempts: number
  readonly next_attempt_at: number
}

/** A user's webhook outbox in their store. */
export const StoreOutbox = (sql: SqlClient.SqlClient) => ({
  head: (limit: number) =>
    Effect.all({
      rows: sql<HeadRow>`SELECT o.event_seq AS seq, o.attempts, o.next_attempt_at, ${sql.literal(EVENT_COLUMNS)}
                         FROM webhook_outbox o JOIN events e ON e.seq = o.event_seq ORDER BY o.event_seq LIMIT ${limit}`,
      total: Effect.map(sql<{ readonly n: number }>`SELECT count(*) AS n FROM webhook_outbox`, (rows) => rows[0]?.n ?? 0)
    }).pipe(Effect.map(({ rows, total }) => ({ entries: rows.map(toEntry), total }))),
  removeThrough: (seq: number) => sql`DELETE FROM webhook_outbox WHERE event_seq <= ${seq}`.pipe(Effect.asVoid),
  postpone: (seq: number, attempts: number, nextAttemptAt: number) =>
    sql`UPDATE webhook_outbox SET attempts = ${attempts}, next_attempt_at = ${nextAttemptAt} WHERE event_seq = ${seq}`.pipe(Effect.asVoid),
  trim: (keep: number) =>
    sql<{ readonly event_seq: number }>`DELETE FROM webhook_outbox WHERE event_seq <= (
                                          SELECT event_seq FROM webhook_outbox ORDER BY event_seq DESC LIMIT 1 OFFSET ${keep})
                                        RETURNING event_seq`.pipe(Effect.map((rows) => rows.length)),
  pending: sql<EventRow>`SELECT ${sql.literal(EVENT_COLUMNS)} FROM webhook_outbox o JOIN events e ON e.seq = o.event_seq ORDER BY o.event_seq`
})

const toEntry = ({ attempts, next_attempt_at, seq, ...event }: HeadRow): OutboxEntry => ({ seq, attempts, nextAttemptAt: next_attempt_at, event })

/**
 * When a store file's first outbox entry is due (epoch ms), read through its own read-only
 * connection, as at start-up, without opening every store through the cache; none when its
 * outbox is empty, or not there yet (a store of an older schema).
 */
export const outboxDue = (storeFile: string): number | undefined => {
  const db = new Database(storeFile, { readonly: true, fileMustExist: true })
  try {
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'webhook_outbox'").get()
    if (table === undefined) return undefined
    const row = db.prepare("SELECT min(next_attempt_at) AS due FROM webhook_outbox").get() as { due: number | null }
    return row.due ?? undefined
  } finally {
    db.close()
  }
}
