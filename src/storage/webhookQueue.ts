import type { SqlClient, SqlError } from "@effect/sql"
import { Effect } from "effect"
import type { StoreUnavailable } from "../api/errors.js"
import type { ControlStoreOperations, QueuedChange } from "./ControlStore.js"

interface QueueRow {
  readonly id: number
  readonly user_id: string
  readonly payload: string
  readonly attempts: number
  readonly next_attempt_at: number
}

const toChange = (row: QueueRow): QueuedChange => ({
  id: row.id,
  userId: row.user_id,
  payload: row.payload,
  attempts: row.attempts,
  nextAttemptAt: row.next_attempt_at
})

/**
 * The control plane's `webhook_queue`, in SQL both backends run as written (`held` is 0 or 1 on
 * both); `failure` maps a statement's failure as the control adapter does.
 */
export const WebhookQueue = (
  sql: SqlClient.SqlClient,
  failure: <A>(statement: Effect.Effect<A, SqlError.SqlError>) => Effect.Effect<A, StoreUnavailable>
): ControlStoreOperations["webhooks"] => ({
  hold: (userId, payloads) =>
    payloads.length === 0 ? Effect.succeed([]) : failure(sql<{ readonly id: number }>`
      INSERT INTO webhook_queue ${sql.insert(payloads.map((payload) => ({ user_id: userId, payload, held: 1 })))} RETURNING id`.pipe(
      Effect.map((rows) => rows.map((row) => row.id).sort((a, b) => a - b))
    )),
  release: (ids) => ids.length === 0 ? Effect.void : failure(sql`UPDATE webhook_queue SET held = 0 WHERE ${sql.in("id", ids)}`.pipe(Effect.asVoid)),
  drop: (ids) => ids.length === 0 ? Effect.void : failure(sql`DELETE FROM webhook_queue WHERE ${sql.in("id", ids)}`.pipe(Effect.asVoid)),
  held: failure(sql<{ readonly id: number; readonly user_id: string }>`SELECT id, user_id FROM webhook_queue WHERE held = 1 ORDER BY id`.pipe(
    Effect.map((rows) => rows.map((row) => ({ id: row.id, userId: row.user_id })))
  )),
  head: (userId, limit) =>
    failure(sql<QueueRow>`SELECT id, user_id, payload, attempts, next_attempt_at FROM webhook_queue
                          WHERE user_id = ${userId} AND held = 0 ORDER BY id LIMIT ${limit}`.pipe(Effect.map((rows) => rows.map(toChange)))),
  remove: (id) => failure(sql`DELETE FROM webhook_queue WHERE id = ${id}`.pipe(Effect.asVoid)),
  postpone: (id, attempts, nextAttemptAt) =>
    failure(sql`UPDATE webhook_queue SET attempts = ${attempts}, next_attempt_at = ${nextAttemptAt} WHERE id = ${id}`.pipe(Effect.asVoid)),
  users: failure(sql<{ readonly user_id: string; readonly due: number }>`
    SELECT user_id, min(next_attempt_at) AS due FROM webhook_queue WHERE held = 0 GROUP BY user_id`.pipe(
    Effect.map((rows) => rows.map((row) => ({ userId: row.user_id, due: row.due })))
  ))
})
