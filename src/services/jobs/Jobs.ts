import { Clock, Effect, Option, Queue } from "effect"
import * as NodeCrypto from "node:crypto"
import { Job, type JobKind, type JobStatus } from "../../api/JobsApi.js"
import { AppConfig } from "../../config/AppConfig.js"
import { ControlStore } from "../../storage/ControlStore.js"
import type { JobRow } from "../../domain/records.js"
import { utcTimestamp } from "../../util/timestamps.js"

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

/**
 * Asynchronous jobs, persisted in the control plane with their payload before they are
 * acknowledged; the ids of runnable jobs wait in `ready` for the runner.
 */
export class Jobs extends Effect.Service<Jobs>()("Memory/Jobs", {
  effect: Effect.gen(function*() {
    const queries = (yield* ControlStore).jobs
    const { jobRetentionMax } = yield* AppConfig
    const ready = yield* Queue.unbounded<string>()

    const get = (jobId: string) =>
      Effect.map(queries.find(jobId), (row) => Option.map(Option.fromNullable(row), toJob)).pipe(
        Effect.withSpan("Jobs.get", { attributes: { job_id: jobId } })
      )

    const submit = (kind: JobKind, userId: string, payload: unknown) =>
      Effect.gen(function*() {
        const jobId = NodeCrypto.randomUUID().replaceAll("-", "")
        yield* queries.insert({ job_id: jobId, kind, user_id: userId, payload: JSON.stringify(payload), created_at: yield* now }, jobRetentionMax)
        yield* Queue.offer(ready, jobId)
        return jobId
      }).pipe(Effect.withSpan("Jobs.submit", { attributes: { kind } }))

    return {
      get,
      submit,
      ready,
      claim: (jobId: string) => Effect.flatMap(now, (at) => queries.claim(jobId, at)),
      succeed: (jobId: string, result: unknown) => Effect.flatMap(now, (at) => queries.succeed(jobId, result, at)),
      fail: (jobId: string, error: string) => Effect.flatMap(now, (at) => queries.fail(jobId, error, at)),
      unfinished: queries.unfinished,
      countByStatus: queries.countByStatus
    } as const
  })
}) {}
