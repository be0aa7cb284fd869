import { Effect, Queue } from "effect"

/**
 * The users this process wrote to since the outbox was last asked who has entries: their
 * changes are delivered at once, without waiting for a scan of the backend.
 */
export const makeWrittenUsers = (webhooks: boolean) =>
  Effect.map(Queue.sliding<void>(1), (signal) => {
    const written = new Set<string>()
    return {
      /** Notes a write of the user (a write that appends no event leaves an empty outbox, found as such). */
      after: <A, E, R>(userId: string, write: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
        webhooks ? Effect.tap(write, () => Effect.zipRight(Effect.sync(() => written.add(userId)), Queue.offer(signal, undefined))) : write,
      /** The users written to since the last call, each due now. */
      take: Effect.sync(() => {
        const users = [...written].map((userId) => ({ userId, due: 0 }))
        written.clear()
        return users
      }),
      /** Waits for this process's next write (at once if one came since the last wait). */
      next: Queue.take(signal)
    }
  })
