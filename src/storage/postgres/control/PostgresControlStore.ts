import { Effect, Layer } from "effect"
import type { ApiKeyRow, ClaimedJob, JobLease, JobRow, RequestLogRow } from "../../../domain/records.js"
import { ControlStore, REQUEST_LOG_ROWS_PER_INSERT } from "../../ControlStore.js"
import { scrubbedResults } from "../../forgetting.js"
import { orUnavailable, PostgresDatabase } from "../database.js"
import { chunks } from "../../transfer/chunks.js"
import { WebhookQueue } from "../../webhookQueue.js"
import { webhookTriggerPresent } from "../webhookTrigger.js"

const JOB_COLUMNS = "job_id, kind, status, user_id, result, error, created_at, finished_at"
const KEY_COLUMNS = "id, name, prefix, created_at, last_used_at, revoked_at"

/** The control plane in the deployment's PostgreSQL database: an unreachable database is `StoreUnavailable`, any other failure a defect. */
export const PostgresControlStoreLive = Layer.effect(
  ControlStore,
  Effect.gen(function*() {
    const sql = yield* PostgresDatabase
    const first = <A>(rows: ReadonlyArray<A>) => rows[0]
    /** When a lease taken now ends, by the database's clock: replicas' clocks may disagree. */
    const lapse = (leaseMs: number) => sql`now() + ${leaseMs}::double precision * interval '1 millisecond'`
    const released = sql.literal("lease_owner = NULL, lease_expires_at = NULL")
    /** Still running under this lease: neither lost, fenced nor claimed again since. */
    const held = (lease: JobLease) => sql`status = 'running' AND lease_owner = ${lease.owner} AND attempts = ${lease.attempt}`
    return {
      jobs: {
        find: (jobId) => sql<JobRow>`SELECT ${sql.literal(JOB_COLUMNS)} FROM jobs WHERE job_id = ${jobId}`.pipe(Effect.map(first), orUnavailable),
        insert: (job, retain) =>
          sql.withTransaction(Effect.gen(function*() {
            yield* sql`INSERT INTO jobs ${sql.insert({ ...job, status: "pending" })}`
            yield* sql`
              DELETE FROM jobs WHERE job_id IN (
                SELECT job_id FROM jobs WHERE status IN ('succeeded', 'failed') ORDER BY created_at, seq
                LIMIT greatest(0, (SELECT count(*) FROM jobs) - ${retain}))`
          })).pipe(orUnavailable),
        claimNext: (owner, leaseMs, at) =>
          sql<ClaimedJob>`
            UPDATE jobs SET status = 'running', started_at = ${at}, attempts = attempts + 1,
              lease_owner = ${owner}, lease_expires_at = ${lapse(leaseMs)}
            WHERE job_id = (
              SELECT job_id FROM jobs
              WHERE status IN ('pending', 'running') AND (status = 'pending' OR lease_expires_at IS NULL OR lease_expires_at < now())
              ORDER BY created_at, seq LIMIT 1 FOR UPDATE SKIP LOCKED)
            RETURNING job_id, kind, payload, attempts`.pipe(Effect.map(first), orUnavailable),
        renew: (jobId, lease, leaseMs) =>
          sql`UPDATE jobs SET lease_expires_at = ${lapse(leaseMs)} WHERE job_id = ${jobId} AND ${held(lease)}
              RETURNING job_id`.pipe(Effect.map((rows) => rows.length > 0), orUnavailable),
        // A finished job keeps no payload (an ingest's holds the user's messages): `payload` is NOT NULL, so the empty object.
        succeed: (jobId, lease, result, at) =>
          sql`UPDATE jobs SET status = 'succeeded', payload = '{}', result = ${JSON.stringify(result)}, error = NULL, finished_at = ${at}, ${released}
              WHERE job_id = ${jobId} AND ${held(lease)}`.pipe(Effect.asVoid, orUnavailable),
        fail: (jobId, lease, error, at) =>
          sql`UPDATE jobs SET status = 'failed', payload = '{}', error = ${error}, finished_at = ${at}, ${released}
              WHERE job_id = ${jobId} AND ${held(lease)}`.pipe(Effect.asVoid, orUnavailable),
        fence: (userId, kinds) =>
          kinds.length === 0 ? Effect.succeed(0) : sql<{ readonly job_id: string }>`
            UPDATE jobs SET ${released} WHERE user_id = ${userId} AND status = 'running' AND kind IN ${sql.in(kinds)} RETURNING job_id`.pipe(
            Effect.map((rows) => rows.length),
            orUnavailable
          ),
        forgetUser: (userId) =>
          sql<{ readonly job_id: string }>`DELETE FROM jobs WHERE user_id = ${userId} AND status IN ('succeeded', 'failed') RETURNING job_id`.pipe(
            Effect.map((rows) => rows.length),
            orUnavailable
          ),
        forgetWords: (userId, removed) =>
          sql.withTransaction(Effect.gen(function*() {
            const jobs = yield* sql<{ readonly job_id: string; readonly result: string }>`
              SELECT job_id, result FROM jobs WHERE user_id = ${userId} AND result IS NOT NULL FOR UPDATE`
            const changed = scrubbedResults(jobs, removed)
            for (const job of changed) yield* sql`UPDATE jobs SET result = ${job.result} WHERE job_id = ${job.job_id}`
            return changed.length
          })).pipe(orUnavailable),
        release: (owner) =>
          sql`UPDATE jobs SET ${released} WHERE status = 'running' AND lease_owner = ${owner}`.pipe(Effect.asVoid, orUnavailable),
        countByStatus: sql<{ readonly status: string; readonly n: number }>`SELECT status, count(*) AS n FROM jobs GROUP BY status`.pipe(
          Effect.map((rows) => Object.fromEntries(rows.map((row) => [row.status, row.n]))),
          orUnavailable
        )
      },
      webhooks: WebhookQueue(sql, orUnavailable),
      apiKeys: {
        insert: (row) => sql`INSERT INTO api_keys ${sql.insert({ ...row })}`.pipe(Effect.asVoid, orUnavailable),
        list: (includeRevoked) =>
          (includeRevoked
            ? sql<ApiKeyRow>`SELECT ${sql.literal(KEY_COLUMNS)} FROM api_keys ORDER BY created_at, seq`
            : sql<ApiKeyRow>`SELECT ${sql.literal(KEY_COLUMNS)} FROM api_keys WHERE revoked_at IS NULL ORDER BY created_at, seq`).pipe(orUnavailable),
        findActiveByHash: (keyHash) =>
          sql<ApiKeyRow>`SELECT ${sql.literal(KEY_COLUMNS)} FROM api_keys WHERE key_hash = ${keyHash} AND revoked_at IS NULL`.pipe(
            Effect.map(first),
            orUnavailable
          ),
        touch: (id, at, staleBefore) =>
          sql`UPDATE api_keys SET last_used_at = ${at} WHERE id = ${id} AND (last_used_at IS NULL OR last_used_at < ${staleBefore})`.pipe(
            Effect.asVoid,
            orUnavailable
          ),
        revoke: (id, at) =>
          sql.withTransaction(Effect.gen(function*() {
            yield* sql`UPDATE api_keys SET revoked_at = ${at} WHERE id = ${id} AND revoked_at IS NULL`
            return first(yield* sql<ApiKeyRow>`SELECT ${sql.literal(KEY_COLUMNS)} FROM api_keys WHERE id = ${id}`)
          })).pipe(orUnavailable),
        countActive: sql<{ readonly n: number }>`SELECT count(*) AS n FROM api_keys WHERE revoked_at IS NULL`.pipe(
          Effect.map((rows) => rows[0]?.n ?? 0),
          orUnavailable
        )
      },
      requestLog: {
        append: (rows, keep) => {
          // Rows older than the newest `keep` would be dropped at once: they are not written. Then
          // each part's statement drops what its rows push past the cap; a statement does not see
          // the rows its own WITH adds, but every older row is there.
          const parts = chunks(rows.slice(-keep), REQUEST_LOG_ROWS_PER_INSERT).map((part) =>
            sql`WITH added AS (INSERT INTO request_log ${sql.insert(part.map((row) => ({ ...row })))} RETURNING id)
                DELETE FROM request_log WHERE id <= (SELECT max(id) FROM added) - ${keep}`)
          // One statement commits by itself; more go in one transaction, so that a retried batch is never half written.
          return (parts.length === 1 ? parts[0]! : sql.withTransaction(Effect.forEach(parts, (part) => part, { discard: true }))).pipe(Effect.asVoid, orUnavailable)
        },
        page: (offset, limit) =>
          Effect.all({
            rows: sql<RequestLogRow>`
              SELECT request_id, method, route, status_code, latency_ms, key_name, key_id, created_at
              FROM request_log ORDER BY id DESC LIMIT ${limit} OFFSET ${offset}`,
            total: Effect.map(sql<{ readonly n: number }>`SELECT count(*) AS n FROM request_log`, (rows) => rows[0]?.n ?? 0)
          }).pipe(orUnavailable)
      },
      // Replicas share the database: no process holds a lock another could be refused.
      lockContention: Effect.succeed({ count: 0, last: null }),
      webhooksOn: orUnavailable(webhookTriggerPresent(sql)),
      sizeBytes: sql<{ readonly bytes: number }>`
        SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes FROM pg_class c
        WHERE c.relname IN ('jobs', 'api_keys', 'request_log') AND c.relkind = 'r'`.pipe(Effect.map((rows) => rows[0]?.bytes ?? 0), orUnavailable)
    }
  })
)
