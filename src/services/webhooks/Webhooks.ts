import { Clock, Effect, Exit, Option, Schedule, Scope } from "effect"
import { AppConfig } from "../../config/AppConfig.js"
import type { WebhookSettings } from "../../config/webhooks.js"
import type { AuditContext } from "../../domain/audit.js"
import { eraseUserEvent } from "../../domain/auditEvents.js"
import { UNSCOPED } from "../../domain/records.js"
import { canonicalJson, type ChangeEvent, changeEvent, parseChangeEvent, retryDelayMs } from "../../domain/webhooks.js"
import { ControlStore } from "../../storage/ControlStore.js"
import { eventRowValues } from "../../storage/rowValues.js"
import { type StoreError, UserStore } from "../../storage/UserStore.js"
import { utcTimestamp } from "../../util/timestamps.js"
import { type Attempt, postChange } from "./delivery.js"
import { WebhookCounters } from "./WebhookCounters.js"

/** How often the dispatcher looks for due changes when nothing wakes it. */
const POLL = "200 millis"
const QUEUE_SCAN_INTERVAL_MS = 1_000
/** Changes read from an outbox at once. */
const BATCH = 50
/** When another process is delivering a user's changes, how long before this one looks again. */
const CLAIMED_ELSEWHERE_MS = 1_000
/** How often an erase looks whether the user's deliveries have paused, and how long it waits for them to. */
const PAUSE_POLL = "20 millis"
const PAUSE_WAIT = "10 seconds"

/** An undelivered change, wherever it is kept, and how to put it off after a failed attempt. */
interface WaitingChange {
  readonly event: ChangeEvent
  readonly attempts: number
  readonly nextAttemptAt: number
  readonly postpone: (attempts: number, at: number) => Effect.Effect<void, StoreError>
}

/** What becomes of a change after an attempt: gone (delivered or refused), or due again at a time. */
type Settled = { readonly _tag: "Gone" } | { readonly _tag: "Later"; readonly at: number }

/**
 * Delivers every memory change to the configured receiver, from the outboxes the writes fill in
 * their own transactions: in order per user, each change until the receiver takes or refuses it,
 * retried with backoff meanwhile, a bounded number of users at once. Off when no URL is set.
 */
export class Webhooks extends Effect.Service<Webhooks>()("Memory/Webhooks", {
  scoped: Effect.gen(function*() {
    const { webhook } = yield* AppConfig
    const store = yield* UserStore
    const control = yield* ControlStore
    const counters = yield* WebhookCounters
    const scope = yield* Effect.scope

    // Users with changes, and when the first is due (epoch ms); users being delivered now.
    const due = new Map<string, number>()
    const delivering = new Set<string>()
    let queueScannedAt = Number.NEGATIVE_INFINITY
    const dueAt = (userId: string, at: number) => due.set(userId, Math.min(at, due.get(userId) ?? Number.POSITIVE_INFINITY))

    /** One attempt at a change, and what becomes of it. */
    const attempt = (settings: WebhookSettings, event: ChangeEvent, attempts: number) =>
      Effect.gen(function*() {
        const result: Attempt = yield* postChange(settings, event, attempts + 1)
        const log = { event_id: event.event_id, user_id: event.user_id, attempt: attempts + 1, result: result.detail }
        if (result.outcome === "delivered") {
          yield* counters.count("delivered")
          return { _tag: "Gone" } satisfies Settled
        }
        if (result.outcome === "failed") {
          yield* counters.count("failed")
          yield* Effect.logWarning("webhook refused by its receiver; the change is not sent again").pipe(Effect.annotateLogs(log))
          return { _tag: "Gone" } satisfies Settled
        }
        const now = yield* Clock.currentTimeMillis
        const at = now + retryDelayMs(attempts + 1, settings.retryBaseMs, settings.retryMaxMs, Math.random())
        yield* Effect.logWarning("webhook not delivered; it is tried again").pipe(Effect.annotateLogs({ ...log, retry_in_ms: at - now }))
        return { _tag: "Later", at } satisfies Settled
      })

    /**
     * Attempts changes in order until one must wait: how many were settled (delivered or
     * refused), and when the one that must wait is due, if one must.
     */
    const deliverInOrder = (settings: WebhookSettings, userId: string, changes: ReadonlyArray<WaitingChange>) =>
      Effect.gen(function*() {
        for (const [settled, change] of changes.entries()) {
          if (change.nextAttemptAt > (yield* Clock.currentTimeMillis)) return { settled, waiting: Option.some(change.nextAttemptAt) }
          const outcome = yield* attempt(settings, change.event, change.attempts)
          yield* counters.retrying(userId, outcome._tag === "Later")
          if (outcome._tag === "Later") {
            yield* change.postpone(change.attempts + 1, outcome.at)
            return { settled, waiting: Option.some(outcome.at) }
          }
        }
        return { settled: changes.length, waiting: Option.none<number>() }
      })

    /**
     * Delivers a user's changes in order: those the control plane keeps (an erase's) first, then
     * the outbox's. Stops at the first change that must wait; the time it is due, or none when
     * nothing is left. Settled outbox entries leave in one statement a batch: a crash before it
     * sends them again, as at-least-once allows.
     */
    const deliverUser = (settings: WebhookSettings, userId: string): Effect.Effect<Option.Option<number>, StoreError> =>
      Effect.gen(function*() {
        for (;;) {
          const queued = yield* control.webhooks.head(userId, BATCH)
          // The queue holds what this service wrote: a change that does not read back is a defect.
          const queuedChanges = yield* Effect.forEach(queued, (change) =>
            Effect.map(Effect.orDie(parseChangeEvent(change.payload)), (event): WaitingChange => ({
              event,
              attempts: change.attempts,
              nextAttemptAt: change.nextAttemptAt,
              postpone: (attempts, at) => control.webhooks.postpone(change.id, attempts, at)
            })))
          const fromQueue = yield* deliverInOrder(settings, userId, queuedChanges)
          yield* Effect.forEach(queued.slice(0, fromQueue.settled), (change) => control.webhooks.remove(change.id), { discard: true })
          if (Option.isSome(fromQueue.waiting)) return fromQueue.waiting
          if (queued.length === BATCH) continue
          const dropped = yield* store.outbox.trim(userId, settings.retentionMax)
          if (dropped > 0) {
            yield* counters.count("dropped", dropped)
            yield* Effect.logWarning("webhook outbox over its cap: the oldest undelivered changes were dropped").pipe(
              Effect.annotateLogs({ user_id: userId, dropped, cap: settings.retentionMax })
            )
          }
          const { entries, total } = yield* store.outbox.head(userId, BATCH)
          yield* counters.pending(userId, total)
          if (entries.length === 0) return Option.none()
          const fromOutbox = yield* deliverInOrder(settings, userId, entries.map((entry) => ({
            event: changeEvent(userId, entry.event),
            attempts: entry.attempts,
            nextAttemptAt: entry.nextAttemptAt,
            postpone: (attempts, at) => store.outbox.postpone(userId, entry.seq, attempts, at)
          })))
          if (fromOutbox.settled > 0) {
            yield* store.outbox.removeThrough(userId, entries[fromOutbox.settled - 1]!.seq)
            yield* counters.pending(userId, total - fromOutbox.settled)
          }
          if (Option.isSome(fromOutbox.waiting)) return fromOutbox.waiting
        }
      })

    /** Delivers a user's due changes if no other process is; then notes when the user is due again. */
    const visit = (settings: WebhookSettings, userId: string) =>
      Effect.gen(function*() {
        // Writes during the visit mark the user due again; the visit itself only adds a later time.
        due.delete(userId)
        const claimed = yield* store.outbox.claim(userId)
        if (!claimed) return dueAt(userId, (yield* Clock.currentTimeMillis) + CLAIMED_ELSEWHERE_MS)
        const next = yield* deliverUser(settings, userId)
        if (Option.isSome(next)) dueAt(userId, next.value)
      }).pipe(
        Effect.scoped,
        Effect.catchAllCause((cause) =>
          Effect.zipRight(
            Effect.logWarning("webhook delivery stopped by a failure; the user's changes are tried again").pipe(Effect.annotateLogs({ user_id: userId }), Effect.annotateLogs("cause", cause)),
            Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => dueAt(userId, now + settings.retryBaseMs)))
          )),
        Effect.ensuring(Effect.sync(() => delivering.delete(userId)))
      )

    /** Learns which users have changes, and starts delivering the due ones, a bounded number at once. */
    const dispatch = (settings: WebhookSettings) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        // The queue is written by erases, which mark their user here: it is looked at for
        // other processes' and earlier runs' erases, once a second at most.
        const queueDue = now - queueScannedAt >= QUEUE_SCAN_INTERVAL_MS
        if (queueDue) queueScannedAt = now
        const found = [...yield* store.outbox.users, ...(queueDue ? yield* control.webhooks.users : [])]
        for (const { due: at, userId } of found) dueAt(userId, at)
        for (const [userId, at] of due) {
          if (delivering.size >= settings.concurrency) break
          if (at > now || delivering.has(userId)) continue
          delivering.add(userId)
          yield* Effect.forkIn(visit(settings, userId), scope)
        }
      }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("webhook dispatch could not look for changes; it looks again", cause)))

    /**
     * An erase cut off by a crash left its changes held: released if the user's data is gone,
     * dropped if it is still there (the erase did not happen).
     */
    const settleHeld = Effect.gen(function*() {
      const held = yield* control.webhooks.held
      for (const userId of new Set(held.map((change) => change.userId))) {
        const ids = held.filter((change) => change.userId === userId).map((change) => change.id)
        const { total } = yield* store.events(userId, { type: null, scope: UNSCOPED, offset: 0, limit: 1 })
        yield* total > 0 ? control.webhooks.drop(ids) : control.webhooks.release(ids)
      }
    })

    /** A process whose configuration differs from the database's setting says so, naming both. */
    const warnOfMismatch = Effect.gen(function*() {
      const here = Option.isSome(webhook)
      const database = yield* control.webhooksOn
      if (here === database) return
      yield* Effect.logWarning(
        here
          ? "webhooks are on in this process but off for the database: no write enters an outbox, so nothing is delivered; restart this process to turn them on for the database"
          : "webhooks are on for the database but off in this process (no SERVICE_WEBHOOK_URL): its writes enter the outboxes for the processes with webhooks to deliver; SERVICE_WEBHOOKS_OFF=true on one start turns them off for all"
      ).pipe(Effect.annotateLogs({ process_webhooks: here ? "on" : "off", database_webhooks: database ? "on" : "off" }))
    })
    yield* warnOfMismatch.pipe(Effect.catchAll((error) => Effect.logWarning("the database's webhook setting could not be read at start", error)))

    if (Option.isSome(webhook)) {
      yield* counters.enable
      yield* settleHeld.pipe(Effect.catchAll((error) => Effect.logWarning("held webhook changes not settled at start; they are at the next", error)))
      // A write here wakes the dispatcher at once; other processes' writes are found by polling.
      const wake = Effect.race(Effect.sleep(POLL), store.outbox.written)
      yield* Effect.forkScoped(Effect.forever(Effect.zipRight(dispatch(webhook.value), wake)))
    }

    /**
     * Pauses the user's deliveries for the rest of the scope: waits for a visit of this process
     * to end, keeps new ones from starting, and holds the user's claim against other processes.
     * A change delivered but not yet removed from the outbox would otherwise be read as pending
     * and sent again. A visit ends with its batch; past the wait (a long backlog to a slow
     * receiver), the erase goes on, and such a change may be sent twice, as at-least-once allows.
     */
    const pauseDeliveries = (userId: string) =>
      Effect.gen(function*() {
        const retry = Schedule.spaced(PAUSE_POLL).pipe(Schedule.upTo(PAUSE_WAIT))
        let paused = false
        const pause = Effect.sync(() => {
          if (delivering.has(userId)) return false
          delivering.add(userId)
          paused = true
          return true
        })
        yield* Effect.acquireRelease(
          Effect.repeat(pause, { until: (done) => done, schedule: retry }),
          () => paused ? Effect.sync(() => delivering.delete(userId)) : Effect.void
        )
        yield* Effect.repeat(claimForScope(userId), { until: (claimed) => claimed, schedule: retry })
      })

    /** One try at the user's claim, held for the rest of the scope when had; a try that fails gives back what it took at once. */
    const claimForScope = (userId: string) =>
      Effect.gen(function*() {
        const attemptScope = yield* Scope.make()
        const claimed = yield* store.outbox.claim(userId).pipe(Scope.extend(attemptScope), Effect.onError(() => Scope.close(attemptScope, Exit.void)))
        if (claimed) yield* Effect.addFinalizer(() => Scope.close(attemptScope, Exit.void))
        else yield* Scope.close(attemptScope, Exit.void)
        return claimed
      })

    /**
     * Erases a user with `erase`, announcing it while webhooks are on for the database (whether or
     * not this process delivers): with the user's deliveries paused, the user's undelivered
     * changes and the erase itself are kept in the control plane first, held until the data is
     * gone, so that the receiver hears of each change once and of the erase after them.
     */
    const announceErase = (userId: string, audit: AuditContext, erase: Effect.Effect<boolean, StoreError>) =>
      Effect.flatMap(control.webhooksOn, (on) => on ? announced(userId, audit, erase) : erase)

    const announced = (userId: string, audit: AuditContext, erase: Effect.Effect<boolean, StoreError>) =>
      Effect.scoped(Effect.gen(function*() {
        yield* pauseDeliveries(userId)
        const pending = yield* store.outbox.pending(userId)
        const ts = utcTimestamp(yield* Clock.currentTimeMillis)
        const changes = [...pending, eventRowValues(eraseUserEvent, audit, ts)].map((row) => canonicalJson(changeEvent(userId, row)))
        const ids = yield* control.webhooks.hold(userId, changes)
        const existed = yield* erase.pipe(Effect.tapError(() => control.webhooks.drop(ids)))
        yield* control.webhooks.release(ids)
        dueAt(userId, 0)
        return existed
      }))

    return { announceErase } as const
  })
}) {}
