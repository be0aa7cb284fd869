import { Effect } from "effect"

/** What the webhook dispatcher has done since the process started, and what waits. */
export interface WebhookCounts {
  readonly enabled: boolean
  readonly delivered: number
  readonly failed: number
  readonly dropped: number
  /** Changes whose last attempt failed and that wait for another. */
  readonly retrying: number
  /** Undelivered changes, as last counted in each user's outbox. */
  readonly pending: number
}

/** The dispatcher's counters, read by /metrics and /v1/admin/stats. */
export class WebhookCounters extends Effect.Service<WebhookCounters>()("Memory/WebhookCounters", {
  sync: () => {
    let enabled = false
    const totals = { delivered: 0, failed: 0, dropped: 0 }
    const retrying = new Set<string>()
    const pendingByUser = new Map<string, number>()
    return {
      enable: Effect.sync(() => void (enabled = true)),
      count: (outcome: keyof typeof totals, n = 1) => Effect.sync(() => void (totals[outcome] += n)),
      /** A user's head change is waiting for another attempt, or is not. */
      retrying: (userId: string, waiting: boolean) => Effect.sync(() => void (waiting ? retrying.add(userId) : retrying.delete(userId))),
      pending: (userId: string, n: number) => Effect.sync(() => void (n > 0 ? pendingByUser.set(userId, n) : pendingByUser.delete(userId))),
      snapshot: Effect.sync((): WebhookCounts => ({
        enabled,
        ...totals,
        retrying: retrying.size,
        pending: [...pendingByUser.values()].reduce((sum, n) => sum + n, 0)
      }))
    } as const
  }
}) {}
