import { Context, type Effect } from "effect"
import type { StoreUnavailable } from "../api/errors.js"
import type { ApiKeyRow, ClaimedJob, JobLease, JobRow, LockContention, Page, RequestLogRow } from "../domain/records.js"
import type { RemovedPassage } from "./forgetting.js"

/**
 * The control plane of a deployment, in the domain's words: jobs, named keys, the request log
 * and refused starts. Kept apart from users' data. A backend that cannot be reached fails with
 * `StoreUnavailable`; any other infrastructure failure is a defect.
 */
type Op<A> = Effect.Effect<A, StoreUnavailable>

/** Request-log rows per multi-row INSERT (8 values each): well under either engine's limit on bound parameters. */
export const REQUEST_LOG_ROWS_PER_INSERT = 500

export interface ControlStoreOperations {
  readonly jobs: {
    readonly find: (jobId: string) => Op<JobRow | undefined>
    /** Inserts a pending job and prunes the oldest finished ones beyond `retain`, as one unit. */
    readonly insert: (
      job: { readonly job_id: string; readonly kind: string; readonly user_id: string; readonly payload: string; readonly created_at: string },
      retain: number
    ) => Op<void>
    /**
     * Hands the oldest job no live worker holds (pending, or running for a worker that is gone) to
     * `owner` under a lease of `leaseMs`, in one statement: two workers never claim the same job.
     * A backend shared by processes counts a worker as gone when its lease lapsed; one held by a
     * single process, when it is not this process's.
     */
    readonly claimNext: (owner: string, leaseMs: number, at: string) => Op<ClaimedJob | undefined>
    /** Extends a lease on a running job; false when the job is no longer held under it (lost, fenced or claimed again). */
    readonly renew: (jobId: string, lease: JobLease, leaseMs: number) => Op<boolean>
    /**
     * Finishes a job still held under `lease`, dropping its payload (an ingest's holds the user's
     * messages) in the same statement: the stored payload becomes `{}`. A worker that lost its job
     * finishes nothing, and a pending or running job keeps its payload, to be resumed.
     */
    readonly succeed: (jobId: string, lease: JobLease, result: unknown, at: string) => Op<void>
    /** As `succeed`, the job failed with `error`: its payload dropped the same way. */
    readonly fail: (jobId: string, lease: JobLease, error: string, at: string) => Op<void>
    /**
     * Takes the user's running jobs of these kinds from their workers, to be claimed and run again
     * from the start: what they read before may have been forgotten since, and a result they
     * finish with under the old lease is refused. How many.
     */
    readonly fence: (userId: string, kinds: ReadonlyArray<string>) => Op<number>
    /** Drops the user's finished jobs, with their results (the user was erased); how many. */
    readonly forgetUser: (userId: string) => Op<number>
    /**
     * Takes forgotten words out of the results of the user's finished jobs (an answer quotes its
     * evidence), each passage replaced by its marker; how many jobs changed. On a backend with
     * files, no earlier copy of a changed page is left in its log.
     */
    readonly forgetWords: (userId: string, removed: ReadonlyArray<RemovedPassage>) => Op<number>
    /** Gives up `owner`'s running jobs (at shutdown), so that any worker may take them at once. */
    readonly release: (owner: string) => Op<void>
    readonly countByStatus: Op<Record<string, number>>
  }
  readonly apiKeys: {
    readonly insert: (row: ApiKeyRow & { readonly key_hash: string }) => Op<void>
    readonly list: (includeRevoked: boolean) => Op<ReadonlyArray<ApiKeyRow>>
    readonly findActiveByHash: (keyHash: string) => Op<ApiKeyRow | undefined>
    /** Marks use, unless it was marked after `staleBefore`: authentication rarely writes. */
    readonly touch: (id: string, at: string, staleBefore: string) => Op<void>
    /** Revokes once (a repeated revoke keeps the first time); the key as it is now, none when unknown. */
    readonly revoke: (id: string, at: string) => Op<ApiKeyRow | undefined>
    readonly countActive: Op<number>
  }
  readonly requestLog: {
    /** Appends rows, in their order, and drops the oldest beyond `keep`, as one unit. */
    readonly append: (rows: ReadonlyArray<RequestLogRow>, keep: number) => Op<void>
    /** Newest first: the reverse of the order the rows were appended in. */
    readonly page: (offset: number, limit: number) => Op<Page<RequestLogRow>>
  }
  /**
   * Changes that outlive a user's store. An erase holds its user's undelivered events and its own
   * event here before the store goes, and releases them once it is gone; held changes are not
   * delivered.
   */
  readonly webhooks: {
    /** Queues held changes, in order; their ids. */
    readonly hold: (userId: string, payloads: ReadonlyArray<string>) => Op<ReadonlyArray<number>>
    readonly release: (ids: ReadonlyArray<number>) => Op<void>
    /** Drops held changes whose erase did not happen. */
    readonly drop: (ids: ReadonlyArray<number>) => Op<void>
    /** Every held change, by user (left by an erase cut off by a crash). */
    readonly held: Op<ReadonlyArray<{ readonly id: number; readonly userId: string }>>
    /** A user's oldest released changes (at most `limit`). */
    readonly head: (userId: string, limit: number) => Op<ReadonlyArray<QueuedChange>>
    readonly remove: (id: number) => Op<void>
    readonly postpone: (id: number, attempts: number, nextAttemptAt: number) => Op<void>
    /** Users with released changes, and when their first is due (epoch ms). */
    readonly users: Op<ReadonlyArray<{ readonly userId: string; readonly due: number }>>
  }
  /** Starts refused because another process held the deployment's lock. */
  readonly lockContention: Op<LockContention>
  /**
   * Whether webhooks are on for the deployment: every process's writes then enter the outboxes,
   * whether or not it delivers them. Set when a process starts (see config/webhooks.ts WebhookSwitch).
   */
  readonly webhooksOn: Op<boolean>
  /** What the control plane takes on disk, for operators. */
  readonly sizeBytes: Op<number>
}

/** A change kept in the control plane's webhook queue: the events of a user being erased, and the erase. */
export interface QueuedChange {
  readonly id: number
  readonly userId: string
  /** The change as delivered, without its delivery id and attempt. */
  readonly payload: string
  readonly attempts: number
  readonly nextAttemptAt: number
}

/** The storage of the control plane: one port, one adapter per backend. */
export class ControlStore extends Context.Tag("Memory/ControlStore")<ControlStore, ControlStoreOperations>() {}
