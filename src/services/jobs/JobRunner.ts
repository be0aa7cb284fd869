import { Cause, Duration, Effect, Exit, Layer, Option, Queue, Schedule } from "effect"
import { errorLine, isApiError, StoreUnavailable } from "../../api/errors.js"
import type { JobKind } from "../../api/JobsApi.js"
import type { ClaimedJob } from "../../domain/records.js"
import { Answerer } from "../recall/Answerer.js"
import { BatchIngest } from "../ingest/BatchIngest.js"
import { Ingest } from "../ingest/Ingest.js"
import { Jobs } from "./Jobs.js"
import { Maintenance } from "../maintenance/Maintenance.js"
import { Reembedding } from "../maintenance/Reembedding.js"
import { span } from "../../util/span.js"

type JobHandler = (payload: unknown, jobId: string) => Effect.Effect<unknown, unknown>

const parsePayload = (text: string) => Effect.try({ try: () => JSON.parse(text) as unknown, catch: (error) => error })

/** Why a job failed, as the job record keeps it: `"<code>: <message>"`. */
const failureLine = (cause: Cause.Cause<unknown>) => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure) && isApiError(failure.value)) return errorLine(failure.value)
  return `internal_error: ${Cause.squash(cause) instanceof Error ? (Cause.squash(cause) as Error).message : "unexpected failure"}`
}

/** Times a job is run again after its storage could not be reached, once it answers again. */
const OUTAGE_ROUNDS = 3

/** How often idle workers look for jobs that other processes accepted, or left when they died. */
const POLL_INTERVAL = Duration.seconds(1)

/**
 * Runs accepted jobs on a few workers, claiming each from the control plane under a lease that the
 * worker renews while it runs: a job whose process died (its lease lapsed, or on SQLite, the next
 * start) is resumed by another worker, and handlers are idempotent, so it applies once. At
 * shutdown the running jobs are given up, to be resumed at once by another process or the next start.
 */
export const JobRunnerLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const jobs = yield* Jobs
    const ingest = yield* Ingest
    const batch = yield* BatchIngest
    const answerer = yield* Answerer
    const maintenance = yield* Maintenance
    const reembedding = yield* Reembedding
    const handlers: Partial<Record<JobKind, JobHandler>> = {
      ingest: ingest.runJob,
      ingest_batch: batch.runJob,
      answer: answerer.runJob,
      dream: maintenance.runJob,
      embed: reembedding.runJob
    }

    /** Renews the job's lease every third of it; completes once the job is no longer this process's. */
    const leaseLost = (claimed: ClaimedJob) => {
      // While the control plane cannot be reached the job is taken as still held: its lease may lapse meanwhile.
      const renew = jobs.renew(claimed).pipe(
        Effect.catchTag("StoreUnavailable", (error) => Effect.as(Effect.logWarning(`job lease not renewed: ${error.message}`), true))
      )
      return Effect.repeat(Effect.delay(renew, Duration.millis(jobs.leaseMs / 3)), { while: (held) => held })
    }

    /** Until the control plane answers again (the job still this worker's, false if not), for five minutes at most. */
    const storeBack = (claimed: ClaimedJob) => Effect.retry(jobs.renew(claimed), Schedule.spaced("1 second").pipe(Schedule.upTo("5 minutes")))

    /**
     * A job whose storage could not be reached is run again once it answers, rather than failed
     * for a passing outage: its handler is idempotent, and it is run again a bounded number of
     * times, since each run may call the provider again.
     */
    const throughOutages = (claimed: ClaimedJob, attempt: Effect.Effect<unknown, unknown>, rounds: number): Effect.Effect<unknown, unknown> =>
      Effect.catchIf(attempt, (error) => error instanceof StoreUnavailable && rounds > 0, (error) =>
        Effect.flatMap(storeBack(claimed), (held) => held ? throughOutages(claimed, attempt, rounds - 1) : Effect.fail(error)))

    const run = (claimed: ClaimedJob) =>
      Effect.gen(function*() {
        const jobId = claimed.job_id
        if (claimed.attempts > 1) yield* Effect.logInfo(`resuming a job its worker left (attempt ${claimed.attempts})`)
        const handler = handlers[claimed.kind as JobKind]
        if (handler === undefined) {
          return yield* jobs.fail(claimed, `server_restarted: this build cannot run '${claimed.kind}' jobs; resubmit to retry`)
        }
        const work = Effect.exit(Effect.flatMap(parsePayload(claimed.payload), (payload) => throughOutages(claimed, handler(payload, jobId), OUTAGE_ROUNDS)))
        const exit = yield* Effect.race(work, Effect.as(leaseLost(claimed), "lost" as const))
        if (exit === "lost") return yield* Effect.logWarning("job left: its lease lapsed or was taken back, and it runs again from the start")
        if (Exit.isSuccess(exit)) return yield* jobs.succeed(claimed, exit.value)
        if (Cause.isInterruptedOnly(exit.cause)) return yield* Effect.interrupt
        if (Cause.isDie(exit.cause)) yield* Effect.logError("job failed unexpectedly", exit.cause)
        yield* jobs.fail(claimed, failureLine(exit.cause))
      }).pipe(
        Effect.annotateLogs({ job_id: claimed.job_id }),
        span("JobRunner.run", { attributes: { job_id: claimed.job_id, attempt: claimed.attempts } })
      )

    /** Claims and runs jobs until none is left, waking another worker at each claim in case there are more. */
    const drain = Effect.gen(function*() {
      while (true) {
        const claimed = yield* jobs.claimNext
        if (claimed === undefined) return
        yield* Queue.offer(jobs.wake, undefined)
        yield* run(claimed)
      }
    }).pipe(Effect.catchAllCause((cause) => {
      if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
      const note = "claiming or finishing a job failed; retrying at the next wake"
      return Cause.isDie(cause) ? Effect.logError(note, cause) : Effect.logWarning(note, cause)
    }))

    yield* Effect.addFinalizer(() =>
      jobs.release.pipe(Effect.catchAllCause((cause) => Effect.logWarning("running jobs could not be given up; they resume when their lease lapses", cause)))
    )
    for (let i = 0; i < jobs.workers; i++) yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Queue.take(jobs.wake), drain)))
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Effect.sleep(POLL_INTERVAL), Queue.offer(jobs.wake, undefined))))
    // Jobs left by a process that stopped are resumed at once.
    yield* Queue.offer(jobs.wake, undefined)
  })
)
