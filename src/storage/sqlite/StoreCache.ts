import { Reactivity } from "@effect/experimental"
import type { SqlClient } from "@effect/sql"
import { Clock, Deferred, Duration, Effect, Exit, Schedule, Scope } from "effect"
import * as NodeFs from "node:fs"
import { AppConfig } from "../../config/AppConfig.js"
import { validateUserId } from "../../domain/userId.js"
import { makeCheckpointer } from "./checkpointer.js"
import { OutboxFilling } from "./outboxFilling.js"
import { openStoreFile, storeDirectory, storeFilePath } from "./storeFile.js"

/** One user's open store. */
export interface UserStoreFile {
  readonly userId: string
  readonly sql: SqlClient.SqlClient
}

interface Entry {
  readonly store: UserStoreFile
  readonly scope: Scope.CloseableScope
  users: number
  /** When the last user released it (epoch ms). */
  idleSince: number
}

/**
 * How long a store over the cap stays open after its last use. Without it, more active users
 * than the cap would close and reopen a store on nearly every request (a checkpoint and a
 * reopen each time); with it, only stores idle this long are closed, by use or by a sweep.
 */
export const IDLE_GRACE = Duration.seconds(1)

/**
 * The open per-user stores: at most SERVICE_STORE_CACHE_MAX of them, least recently used closed
 * first. A store in use, or idle for less than IDLE_GRACE, is never closed: the cap is exceeded
 * instead until it is released and its grace is over. Concurrent users of one store share one
 * connection, which serializes writes.
 */
export class StoreCache extends Effect.Service<StoreCache>()("Memory/StoreCache", {
  scoped: Effect.gen(function*() {
    const { dataRoot, storeCacheMax } = yield* AppConfig
    const fillOutboxes = yield* OutboxFilling
    const reactivity = yield* Reactivity.Reactivity
    // Map order is recency order: a touched entry is moved to the end.
    const entries = new Map<string, Entry>()
    // Users whose store is being erased: their requests wait until it is gone.
    const erasing = new Map<string, Deferred.Deferred<void>>()
    const guard = yield* Effect.makeSemaphore(1)
    const checkpointer = yield* makeCheckpointer

    const closeIdleOverCap = Effect.gen(function*() {
      const graceStart = (yield* Clock.currentTimeMillis) - Duration.toMillis(IDLE_GRACE)
      for (const [userId, entry] of entries) {
        if (entries.size <= storeCacheMax) return
        if (entry.users > 0 || entry.idleSince > graceStart) continue
        entries.delete(userId)
        yield* Scope.close(entry.scope, Exit.void)
      }
    })

    const open = (userId: string) =>
      Effect.map(openStoreFile({ dataRoot, userId, checkpointer, reactivity, webhooks: fillOutboxes }), ({ scope, sql }) =>
        ({ store: { userId, sql }, scope, users: 0, idleSince: 0 }) satisfies Entry)

    /**
     * A cached store taken at once, in one synchronous step, unless it is being erased: the guard is
     * only waited for to open or close stores, which never happens between two synchronous steps.
     */
    const takeCached = (userId: string) =>
      Effect.sync(() => {
        const cached = erasing.has(userId) ? undefined : entries.get(userId)
        if (cached === undefined) return undefined
        entries.delete(userId)
        entries.set(userId, cached)
        cached.users++
        return cached
      })

    /** Opens a store (or takes it, if another fiber opened it meanwhile); none when it does not exist and `create` is false. */
    const takeOpening = (userId: string, create: boolean) =>
      Effect.gen(function*() {
        const pendingErase = yield* guard.withPermits(1)(Effect.sync(() => erasing.get(userId)))
        if (pendingErase !== undefined) yield* Deferred.await(pendingErase)
        return yield* guard.withPermits(1)(Effect.gen(function*() {
          const cached = entries.get(userId)
          if (cached !== undefined) {
            entries.delete(userId)
            entries.set(userId, cached)
            cached.users++
            return cached
          }
          if (!create && !NodeFs.existsSync(storeFilePath(dataRoot, userId))) return undefined
          const opened = yield* open(userId)
          opened.users = 1
          entries.set(userId, opened)
          yield* closeIdleOverCap
          return opened
        }))
      })

    /** Gives a store back; only a cache over its cap has anything to close. */
    const release = (entry: Entry) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        entry.users--
        if (entry.users === 0) entry.idleSince = now
        return entries.size > storeCacheMax ? guard.withPermits(1)(closeIdleOverCap) : Effect.void
      })

    /** Takes a store; none when it does not exist and `create` is false. */
    const take = (userId: string, create: boolean) =>
      Effect.flatMap(validateUserId(userId), () =>
        Effect.flatMap(takeCached(userId), (cached) => cached === undefined ? takeOpening(userId, create) : Effect.succeed(cached)))

    /**
     * Runs `use` with the store taken, given back however it ends. Taken and given back around
     * `use` rather than with a scope: a scope's finalizer diffs the fiber's whole state (the
     * request's context of some 40 services) to restore it, on every request.
     */
    const withStore = <A, E, R>(userId: string, create: boolean, use: (entry: Entry | undefined) => Effect.Effect<A, E, R>) =>
      Effect.acquireUseRelease(take(userId, create), use, (entry) => entry === undefined ? Effect.void : release(entry))

    /** Closes a user's store once nobody uses it and removes its directory; false when there was none. */
    const erase = (userId: string) =>
      Effect.gen(function*() {
        yield* validateUserId(userId)
        const done = yield* Deferred.make<void>()
        const already = yield* guard.withPermits(1)(Effect.sync(() => {
          const current = erasing.get(userId)
          if (current === undefined) erasing.set(userId, done)
          return current
        }))
        if (already !== undefined) {
          yield* Deferred.await(already)
          return false
        }
        const directory = storeDirectory(dataRoot, userId)
        const existed = yield* Effect.gen(function*() {
          for (;;) {
            const removed = yield* guard.withPermits(1)(Effect.gen(function*() {
              const entry = entries.get(userId)
              if (entry !== undefined && entry.users > 0) return undefined
              if (entry !== undefined) {
                entries.delete(userId)
                yield* Scope.close(entry.scope, Exit.void)
              }
              const present = NodeFs.existsSync(directory)
              NodeFs.rmSync(directory, { recursive: true, force: true })
              return present
            }))
            if (removed !== undefined) return removed
            yield* Effect.sleep("10 millis")
          }
        }).pipe(
          Effect.ensuring(guard.withPermits(1)(Effect.sync(() => erasing.delete(userId))).pipe(Effect.zipRight(Deferred.succeed(done, undefined))))
        )
        return existed
      })

    // Stores whose grace ran out while nobody used the cache are closed by this sweep.
    yield* Effect.forkScoped(Effect.repeat(guard.withPermits(1)(closeIdleOverCap), Schedule.spaced(Duration.unsafeDivide(IDLE_GRACE, 4))))

    yield* Effect.addFinalizer(() =>
      guard.withPermits(1)(Effect.forEach(entries.values(), (entry) => Scope.close(entry.scope, Exit.void), { discard: true }).pipe(
        Effect.ensuring(Effect.sync(() => entries.clear()))
      ))
    )

    return {
      /** Runs `use` with the user's store, creating it if needed (the write path). */
      write: <A, E, R>(userId: string, use: (store: UserStoreFile) => Effect.Effect<A, E, R>) =>
        withStore(userId, true, (entry) => entry === undefined ? Effect.dieMessage("a store opened for writing is always present") : use(entry.store)),
      /** Runs `use` with the user's store if it exists; `absent` otherwise. A read never creates one. */
      read: <A, E, R>(userId: string, use: (store: UserStoreFile) => Effect.Effect<A, E, R>, absent: () => A) =>
        withStore(userId, false, (entry) => entry === undefined ? Effect.succeed(absent()) : use(entry.store)),
      erase,
      /** How many stores are open now. */
      openCount: Effect.sync(() => entries.size)
    } as const
  }),
  dependencies: [Reactivity.layer]
}) {}
