import { Clock, Effect, Option, Queue } from "effect"
import * as NodeCrypto from "node:crypto"
import * as NodeOs from "node:os"
import { Job, type JobKind, type JobStatus } from "../../api/JobsApi.js"
import { AppConfig } from "../../config/AppConfig.js"
import { ControlStore } from "../../storage/ControlStore.js"
import type { ClaimedJob, JobLease, JobRow } from "../../domain/records.js"
import { utcTimestamp } from "../../util/timestamps.js"
import { span } from "../../util/span.js"

const toJob = (row: JobRow) =>
  new Job({
    job_id: row.job_id,
    status: row.status as JobStatus,
    kind: row.kind as JobKind,
    user_id: row.user_id,
    created_at: row.created_at,
    finished_at: row.finished_at,
    result: row.result === null ? null : JSON.parse(row.result) as Record<string, unknown>,
    error: row.error
  })

const now = Effect.map(Clock.currentTimeMillis, utcTimestamp)

/** The kinds of job whose results quote the user's memories (an answer quotes its evidence). */
export const QUOTING_KINDS: ReadonlyArray<JobKind> = ["answer"]

/** Jobs run at once, at least; more when the provider may take more sessions at once. */
const MIN_WORKERS = 4

/** This process's workers, as job leases name them: readable by operators, unique across restarts. */
const workerName = () => `${NodeOs.hostname()}:${process.pid}:${NodeCrypto.randomUUID().slice(0, 8)}`

/**
 * Asynchronous jobs, persisted in the control plane with their payload before they are
 * acknowledged. Workers claim them from there, so any process on the same control plane may run
 * any job; `wake` tells this process's idle workers that there may be one to claim.
 */
export class Jobs extends Effect.Service<Jobs>()("Memory/Jobs", {
  effect: Effect.gen(function*() {
    const queries = (yield* ControlStore).jobs
    const { jobLeaseMs, jobRetentionMax, llm } = yield* AppConfig
    // Jobs mostly wait on the provider: as many workers as sessions the provider may take at once.
    const workers = Math.max(MIN_WORKERS, llm.concurrency)
    // A wake-up beyond one per worker would find nothing more: each claim wakes the next worker.
    const wake = yield* Queue.sliding<void>(workers)
    const owner = workerName()
    const leaseOf = (claimed: ClaimedJob): JobLease => ({ owner, attempt: claimed.attempts })

    const get = (jobId: string) =>
      Effect.map(queries.find(jobId), (row) => Option.map(Option.fromNullable(row), toJob)).pipe(
        span("Jobs.get", { attributes: { job_id: jobId } })
      )

    const submit = (kind: JobKind, userId: string, payload: unknown) =>
      Effect.gen(function*() {
        const jobId = NodeCrypto.randomUUID().replaceAll("-", "")
        yield* queries.insert({ job_id: jobId, kind, user_id: userId, payload: JSON.stringify(payload), created_at: yield* now }, jobRetentionMax)
        yield* Queue.offer(wake, undefined)
        return jobId
      }).pipe(span("Jobs.submit", { attributes: { kind } }))

    return {
      get,
      submit,
      wake,
      workers,
      leaseMs: jobLeaseMs,
      claimNext: Effect.flatMap(now, (at) => queries.claimNext(owner, jobLeaseMs, at)),
      renew: (claimed: ClaimedJob) => queries.renew(claimed.job_id, leaseOf(claimed), jobLeaseMs),
      succeed: (claimed: ClaimedJob, result: unknown) => Effect.flatMap(now, (at) => queries.succeed(claimed.job_id, leaseOf(claimed), result, at)),
      fail: (claimed: ClaimedJob, error: string) => Effect.flatMap(now, (at) => queries.fail(claimed.job_id, leaseOf(claimed), error, at)),
      release: queries.release(owner),
      countByStatus: queries.countByStatus
    } as const
  })
}) {}
