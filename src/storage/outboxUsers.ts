import { Effect } from "effect"

/**
 * The users this process wrote to since the outbox was last asked who has entries: their
 * changes are delivered at once, without waiting for a scan of the backend.
 */
export const makeWrittenUsers = (webhooks: boolean) => {
  const written = new Set<string>()
  return {
    /** Notes a write of the user (a write that appends no event leaves an empty outbox, found as such). */
    after: <A, E, R>(userId: string, write: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      webhooks ? Effect.tap(write, () => Effect.sync(() => written.add(userId))) : write,
    /** The users written to since the last call, each due now. */
    take: Effect.sync(() => {
      const users = [...written].map((userId) => ({ userId, due: 0 }))
      written.clear()
      return users
    })
  }
}
