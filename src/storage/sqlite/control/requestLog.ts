import { Effect } from "effect"
import type { RequestLogRow } from "../../../domain/records.js"
import { REQUEST_LOG_ROWS_PER_INSERT } from "../../ControlStore.js"
import { chunks } from "../../transfer/chunks.js"
import { ControlDb } from "./ControlDb.js"

/** SQL over the `request_log` table; infrastructure failures are defects. */
export const RequestLogQueries = Effect.gen(function*() {
  const sql = yield* ControlDb
  return {
    /** Appends rows, in their order, and drops the oldest beyond `keep`, in one transaction. */
    append: (rows: ReadonlyArray<RequestLogRow>, keep: number) =>
      sql.withTransaction(Effect.gen(function*() {
        for (const chunk of chunks(rows, REQUEST_LOG_ROWS_PER_INSERT)) yield* sql`INSERT INTO request_log ${sql.insert(chunk.map((row) => ({ ...row })))}`
        yield* sql`DELETE FROM request_log WHERE id <= (SELECT max(id) FROM request_log) - ${keep}`
      })).pipe(Effect.orDie),

    /** Newest first, with how many rows are kept in all. */
    page: (offset: number, limit: number) =>
      Effect.all({
        rows: sql<RequestLogRow>`
          SELECT request_id, method, route, status_code, latency_ms, key_name, key_id, created_at
          FROM request_log ORDER BY id DESC LIMIT ${limit} OFFSET ${offset}`,
        total: Effect.map(sql<{ readonly n: number }>`SELECT count(*) AS n FROM request_log`, (rows) => rows[0]?.n ?? 0)
      }).pipe(Effect.orDie)
  }
})
