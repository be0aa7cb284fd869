import { Duration, Effect, Either, Schedule } from "effect"
import { AddMemoriesResult } from "../../api/MemoriesApi.js"
import type { MemoryClient } from "./client.js"
import { attempt, MemoryFailure } from "./failure.js"
import type { Subject } from "./reads.js"
import { scoped } from "./scope.js"

export interface StoredMessage {
  readonly role: "user" | "assistant" | "system"
  readonly content: string
}

export interface StoreOptions {
  readonly sessionId?: string | undefined
  /** Extract facts with the service's LLM (default true), or keep the turns verbatim. */
  readonly infer?: boolean | undefined
  /** Have the service write before it answers (true), or queue the work as a job and follow it (false). */
  readonly wait: boolean
}

const JOB_POLL = Duration.millis(200)

/** Follows an ingest job until it has succeeded (or fails with its error): the service's async work, seen to its end. */
const jobDone = (client: MemoryClient, jobId: string) =>
  client.api.jobs.getJob({ path: { job_id: jobId } }).pipe(
    Effect.filterOrFail((job) => job.status === "succeeded" || job.status === "failed", () => "running" as const),
    Effect.retry({ while: (reason) => reason === "running", schedule: Schedule.spaced(JOB_POLL) }),
    Effect.flatMap((job) =>
      job.status === "failed" ? Effect.fail(new MemoryFailure({ code: "ingest_failed", message: job.error ?? `job ${jobId} failed` })) : Effect.void
    )
  )

/**
 * Stores messages for a subject and, when the service queued them as a job, follows the job to
 * its end; true when they were stored. A failure is counted and logged, never thrown.
 */
export const storeMessages = async (client: MemoryClient, subject: Subject, messages: ReadonlyArray<StoredMessage>, options: StoreOptions) => {
  const kept = messages.filter((message) => message.content.trim() !== "")
  if (kept.length === 0) return true
  const add = client.api.memories.add({
    payload: {
      ...scoped(subject.userId, subject.scope),
      messages: kept,
      ...(options.sessionId === undefined ? {} : { session_id: options.sessionId }),
      infer: options.infer ?? true,
      async_mode: !options.wait
    }
  })
  const answer = await attempt(
    client,
    Effect.flatMap(add, (result) => result instanceof AddMemoriesResult ? Effect.void : jobDone(client, result.job_id)),
    client.writeTimeoutMs
  )
  if (Either.isLeft(answer)) client.note("storeFailures", "could not store the exchange", answer.left.line)
  return Either.isRight(answer)
}

/** Stores an exchange in the background: the answer is not kept waiting; `client.settled()` waits until it is stored. */
export const storeInBackground = (client: MemoryClient, subject: Subject, messages: ReadonlyArray<StoredMessage>, options: Omit<StoreOptions, "wait">) =>
  client.track(storeMessages(client, subject, messages, { ...options, wait: false }))
