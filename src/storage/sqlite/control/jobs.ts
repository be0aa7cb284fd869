import { Effect } from "effect"
import type { ClaimedJob, JobLease, JobRow } from "../../../domain/records.js"
import { type RemovedPassage, scrubbedResults } from "../../forgetting.js"
import { ControlDb } from "./ControlDb.js"

/** SQL over the `jobs` table; infrastructure failures are defects. */
export const JobQueries = Effect.gen(function*() {
  const sql = yield* ControlDb
  /** Still running under this lease: neither lost, fenced nor claimed again since. */
  const held = (lease: JobLease) => sql`status = 'running' AND lease_owner = ${lease.owner} AND attempts = ${lease.attempt}`
  // The write-ahead log keeps earlier copies of the pages a forgetting rewrote (and of payloads
  // dropped long before): it is emptied into the file and cut to nothing.
  const truncateLog = sql`PRAGMA wal_checkpoint(TRUNCATE)`
  return {
    find: (jobId: string) =>
      sql<JobRow>`
        SELECT job_id, kind, status, user_id, result, error, created_at, finished_at
        FROM jobs WHERE job_id = ${jobId}`.pipe(Effect.map((rows) => rows[0]), Effect.orDie),

    /** Inserts a pending job and prunes the oldest finished ones beyond the retention cap, in one transaction. */
    insert: (job: { readonly job_id: string; readonly kind: string; readonly user_id: string; readonly payload: string; readonly created_at: string }, retain: number) =>
      sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO jobs ${sql.insert({ ...job, status: "pending" })}`
        yield* sql`
          DELETE FROM jobs WHERE job_id IN (
            SELECT job_id FROM jobs WHERE status IN ('succeeded', 'failed')
            ORDER BY created_at, rowid
            LIMIT max(0, (SELECT count(*) FROM jobs) - ${retain}))`
      })).pipe(Effect.orDie),

    /** A running job is nobody's once its owner is not this process: one process holds a data root. */
    claimNext: (owner: string, _leaseMs: number, at: string) =>
      sql<ClaimedJob>`
        UPDATE jobs SET status = 'running', started_at = ${at}, attempts = attempts + 1, lease_owner = ${owner}
        WHERE job_id = (
          SELECT job_id FROM jobs
          WHERE status IN ('pending', 'running') AND (status = 'pending' OR lease_owner IS NULL OR lease_owner <> ${owner})
          ORDER BY created_at, rowid LIMIT 1)
        RETURNING job_id, kind, payload, attempts`.pipe(Effect.map((rows) => rows[0]), Effect.orDie),

    renew: (jobId: string, lease: JobLease) =>
      sql<{ readonly job_id: string }>`SELECT job_id FROM jobs WHERE job_id = ${jobId} AND ${held(lease)}`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      ),

    /** A finished job keeps no payload (an ingest's holds the user's messages): `payload` is NOT NULL, so the empty object. */
    succeed: (jobId: string, lease: JobLease, result: unknown, at: string) =>
      sql`UPDATE jobs SET status = 'succeeded', payload = '{}', result = ${JSON.stringify(result)}, error = NULL, finished_at = ${at}, lease_owner = NULL
          WHERE job_id = ${jobId} AND ${held(lease)}`.pipe(Effect.asVoid, Effect.orDie),

    fail: (jobId: string, lease: JobLease, error: string, at: string) =>
      sql`UPDATE jobs SET status = 'failed', payload = '{}', error = ${error}, finished_at = ${at}, lease_owner = NULL
          WHERE job_id = ${jobId} AND ${held(lease)}`.pipe(Effect.asVoid, Effect.orDie),

    fence: (userId: string, kinds: ReadonlyArray<string>) =>
      kinds.length === 0 ? Effect.succeed(0) : sql<{ readonly job_id: string }>`
        UPDATE jobs SET lease_owner = NULL WHERE user_id = ${userId} AND status = 'running' AND kind IN ${sql.in(kinds)} RETURNING job_id`.pipe(
        Effect.map((rows) => rows.length),
        Effect.orDie
      ),

    forgetUser: (userId: string) =>
      sql<{ readonly job_id: string }>`DELETE FROM jobs WHERE user_id = ${userId} AND status IN ('succeeded', 'failed') RETURNING job_id`.pipe(
        Effect.map((rows) => rows.length),
        Effect.tap(truncateLog),
        Effect.orDie
      ),

    forgetWords: (userId: string, removed: ReadonlyArray<RemovedPassage>) =>
      sql.withTransaction(Effect.gen(function*() {
        const jobs = yield* sql<{ readonly job_id: string; readonly result: string }>`
          SELECT job_id, result FROM jobs WHERE user_id = ${userId} AND result IS NOT NULL`
        const changed = scrubbedResults(jobs, removed)
        for (const job of changed) yield* sql`UPDATE jobs SET result = ${job.result} WHERE job_id = ${job.job_id}`
        return changed.length
      })).pipe(Effect.tap(truncateLog), Effect.orDie),

    release: (owner: string) =>
      sql`UPDATE jobs SET lease_owner = NULL WHERE status = 'running' AND lease_owner = ${owner}`.pipe(Effect.asVoid, Effect.orDie),

    countByStatus: sql<{ readonly status: string; readonly n: number }>`SELECT status, count(*) AS n FROM jobs GROUP BY status`.pipe(
      Effect.map((rows) => Object.fromEntries(rows.map((row) => [row.status, row.n]))),
      Effect.orDie
    )
  }
})
