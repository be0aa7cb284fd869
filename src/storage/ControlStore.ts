import { Context, type Effect } from "effect"
import type { ApiKeyRow, ClaimedJob, JobRow, LockContention, Page, RequestLogRow } from "../domain/records.js"

/**
 * The control plane of a deployment, in the domain's words: jobs, named keys, the request log
 * and refused starts. Kept apart from users' data. Infrastructure failures are defects.
 */
export interface ControlStoreOperations {
  readonly jobs: {
    readonly find: (jobId: string) => Effect.Effect<JobRow | undefined>
    /** Inserts a pending job and prunes the oldest finished ones beyond `retain`, as one unit. */
    readonly insert: (
      job: { readonly job_id: string; readonly kind: string; readonly user_id: string; readonly payload: string; readonly created_at: string },
      retain: number
    ) => Effect.Effect<void>
    /** Marks a pending (or, after a crash, running) job as running and hands back its payload; none when it is finished or unknown. */
    readonly claim: (jobId: string, at: string) => Effect.Effect<ClaimedJob | undefined>
    readonly succeed: (jobId: string, result: unknown, at: string) => Effect.Effect<void>
    readonly fail: (jobId: string, error: string, at: string) => Effect.Effect<void>
    readonly countByStatus: Effect.Effect<Record<string, number>>
    /** Jobs accepted but not finished (by a process that stopped), oldest first. */
    readonly unfinished: Effect.Effect<ReadonlyArray<string>>
  }
  readonly apiKeys: {
    readonly insert: (row: ApiKeyRow & { readonly key_hash: string }) => Effect.Effect<void>
    readonly list: (includeRevoked: boolean) => Effect.Effect<ReadonlyArray<ApiKeyRow>>
    readonly findActiveByHash: (keyHash: string) => Effect.Effect<ApiKeyRow | undefined>
    /** Marks use, unless it was marked after `staleBefore`: authentication rarely writes. */
    readonly touch: (id: string, at: string, staleBefore: string) => Effect.Effect<void>
    /** Revokes once (a repeated revoke keeps the first time); the key as it is now, none when unknown. */
    readonly revoke: (id: string, at: string) => Effect.Effect<ApiKeyRow | undefined>
    readonly countActive: Effect.Effect<number>
  }
  readonly requestLog: {
    /** Appends a row and drops the oldest beyond `keep`, as one unit. */
    readonly append: (row: RequestLogRow, keep: number) => Effect.Effect<void>
    /** Newest first. */
    readonly page: (offset: number, limit: number) => Effect.Effect<Page<RequestLogRow>>
  }
  /** Starts refused because another process held the deployment's lock. */
  readonly lockContention: Effect.Effect<LockContention>
  /** What the control plane takes on disk, for operators. */
  readonly sizeBytes: Effect.Effect<number>
}

/** The storage of the control plane: one port, one adapter per backend. */
export class ControlStore extends Context.Tag("Memory/ControlStore")<ControlStore, ControlStoreOperations>() {}
