import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { writeBatches } from "../../transfer/batches.js"
import { USER_TABLES } from "../../transfer/records.js"
import type { UserLoad } from "../../UserStore.js"
import { clock, lockedTransaction } from "../user/writes.js"
import { UserRows } from "./userRows.js"

/** One user's rows read page by page and loaded whole, over the transfer records. */
export const UserPortability = (sql: SqlClient.SqlClient, userId: string) => {
  const rows = UserRows(sql, userId)
  const holds = Effect.map(
    Effect.forEach(USER_TABLES, (table) => sql`SELECT 1 AS present FROM ${sql(table)} WHERE user_id = ${userId} LIMIT 1`),
    (found) => found.some((present) => present.length > 0)
  )
  return {
    holds,
    space: Effect.map(
      sql<{ readonly model: string | null; readonly dimensions: number | null }>`
        SELECT embedding_model AS model, embedding_dimensions AS dimensions FROM users WHERE user_id = ${userId}`,
      ([user]) => user?.model == null || user.dimensions === null ? null : { model: user.model, dimensions: user.dimensions }
    ),
    page: rows.page,
    /** Under the user's write lock; the postings and lexical counters are built from the rows, and new rows take seqs after theirs. */
    load: <E>(load: UserLoad<E>) =>
      lockedTransaction(sql, userId, (writes) => Effect.gen(function*() {
        if (yield* holds) return "Occupied" as const
        const { now } = yield* clock
        const space = load.space
        yield* sql`INSERT INTO users (user_id, created_at, embedding_model, embedding_dimensions)
                   VALUES (${userId}, ${now}, ${space?.model ?? null}, ${space?.dimensions ?? null})
                   ON CONFLICT (user_id) DO UPDATE SET embedding_model = EXCLUDED.embedding_model, embedding_dimensions = EXCLUDED.embedding_dimensions`
        const loaded = yield* writeBatches(load.batches, rows.insertRows)
        yield* rows.advanceSequences
        yield* writes.insertEvents([load.event(loaded)], load.audit, now)
        yield* writes.reindex
        return "Loaded" as const
      }))
  }
}
