import { Effect } from "effect"
import { ControlDb } from "./ControlDb.js"

export interface JobRow {
  readonly job_id: string
  readonly kind: string
  readonly status: string
  readonly user_id: string
  readonly result: string | null
  readonly error: string | null
  readonly created_at: string
  readonly finished_at: string | null
}

/** SQL over the `jobs` table; infrastructure failures are defects. */
export const JobQueries = Effect.gen(function*() {
  const sql = yield* ControlDb
  return {
    find: (jobId: string) =>
      sql<JobRow>`
        SELECT job_id, kind, status, user_id, result, error, created_at, finished_at
        FROM jobs WHERE job_id = ${jobId}`.pipe(Effect.map((rows) => rows[0]), Effect.orDie)
  }
})
