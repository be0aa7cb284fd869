import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"

// Jobs whose writes are committed in this store, recorded in the same transaction as the writes,
// so that a job resumed after a crash is applied exactly once.

/** The recorded result of a job whose writes are already committed here, if any. */
export const appliedJobResult = (sql: SqlClient.SqlClient, jobId: string) =>
  Effect.map(
    sql<{ readonly result: string }>`SELECT result FROM applied_jobs WHERE job_id = ${jobId}`,
    (rows) => rows[0]?.result
  )

/** Records a job's result (JSON text) with its writes. */
export const markJobApplied = (sql: SqlClient.SqlClient, jobId: string, result: string, now: string) =>
  sql`INSERT INTO applied_jobs (job_id, result, applied_at) VALUES (${jobId}, ${result}, ${now})`.pipe(Effect.asVoid)
