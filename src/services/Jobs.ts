import { Effect, Option } from "effect"
import { Job, type JobKind, type JobStatus } from "../api/JobsApi.js"
import { JobQueries, type JobRow } from "../store/control/jobs.js"

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

/** Asynchronous jobs persisted in the control plane. */
export class Jobs extends Effect.Service<Jobs>()("Memory/Jobs", {
  effect: Effect.gen(function*() {
    const queries = yield* JobQueries
    const get = (jobId: string) =>
      Effect.map(queries.find(jobId), (row) => Option.map(Option.fromNullable(row), toJob)).pipe(
        Effect.withSpan("Jobs.get", { attributes: { job_id: jobId } })
      )
    return { get } as const
  })
}) {}
