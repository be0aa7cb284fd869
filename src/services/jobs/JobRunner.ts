import { Cause, Effect, Exit, Layer, Option, Queue } from "effect"
import { errorLine, isApiError } from "../../api/errors.js"
import type { JobKind } from "../../api/JobsApi.js"
import { AppConfig } from "../../config/AppConfig.js"
import { Answerer } from "../recall/Answerer.js"
import { BatchIngest } from "../ingest/BatchIngest.js"
import { Ingest } from "../ingest/Ingest.js"
import { Jobs } from "./Jobs.js"
import { Maintenance } from "../maintenance/Maintenance.js"

/** Jobs run at once, at least; more when the provider may take more sessions at once. */
const MIN_WORKERS = 4

type JobHandler = (payload: unknown, jobId: string) => Effect.Effect<unknown, unknown>

const parsePayload = (text: string) => Effect.try({ try: () => JSON.parse(text) as unknown, catch: (error) => error })

/** Why a job failed, as the job record keeps it: `"<code>: <message>"`. */
const failureLine = (cause: Cause.Cause<unknown>) => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure) && isApiError(failure.value)) return errorLine(failure.value)
  return `internal_error: ${Cause.squash(cause) instanceof Error ? (Cause.squash(cause) as Error).message : "unexpected failure"}`
}

/**
 * Runs accepted jobs on a few workers. At start it first resumes the jobs a previous process
 * accepted and did not finish; handlers are idempotent, so a job cut off mid-write applies once.
 * A job interrupted by shutdown stays `running` and is resumed at the next start.
 */
export const JobRunnerLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const config = yield* AppConfig
    const jobs = yield* Jobs
    const ingest = yield* Ingest
    const batch = yield* BatchIngest
    const answerer = yield* Answerer
    const maintenance = yield* Maintenance
    const handlers: Partial<Record<JobKind, JobHandler>> = {
      ingest: ingest.runJob,
      ingest_batch: batch.runJob,
      answer: answerer.runJob,
      dream: maintenance.runJob
    }

    const run = (jobId: string) =>
      Effect.gen(function*() {
        const claimed = yield* jobs.claim(jobId)
        if (claimed === undefined) return
        const handler = handlers[claimed.kind as JobKind]
        if (handler === undefined) {
          return yield* jobs.fail(jobId, `server_restarted: this build cannot run '${claimed.kind}' jobs; resubmit to retry`)
        }
        const exit = yield* Effect.exit(Effect.flatMap(parsePayload(claimed.payload), (payload) => handler(payload, jobId)))
        if (Exit.isSuccess(exit)) return yield* jobs.succeed(jobId, exit.value)
        if (Cause.isInterruptedOnly(exit.cause)) return yield* Effect.interrupt
        if (Cause.isDie(exit.cause)) yield* Effect.logError("job failed unexpectedly", exit.cause)
        yield* jobs.fail(jobId, failureLine(exit.cause))
      }).pipe(Effect.annotateLogs({ job_id: jobId }), Effect.withSpan("JobRunner.run", { attributes: { job_id: jobId } }))

    const unfinished = yield* jobs.unfinished
    if (unfinished.length > 0) yield* Effect.logInfo(`resuming ${unfinished.length} unfinished jobs`)
    yield* Queue.offerAll(jobs.ready, unfinished)
    // Jobs mostly wait on the provider: as many workers as sessions the provider may take at once.
    for (let i = 0; i < Math.max(MIN_WORKERS, config.llm.concurrency); i++) {
      yield* Effect.forkScoped(Effect.forever(Effect.flatMap(Queue.take(jobs.ready), run)))
    }
  })
)
