import { Reactivity } from "@effect/experimental"
import type { SqlClient } from "@effect/sql"
import { Clock, Deferred, Duration, Effect, Exit, Option, Schedule, Scope } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as SqliteVec from "sqlite-vec"
import { InvalidScope, StoreUnavailable } from "../../api/errors.js"
import { AppConfig } from "../../config/AppConfig.js"
import { FOREGROUND_CHECKPOINT_PAGES, makeCheckpointer } from "./checkpointer.js"
import { openMigrated } from "./database.js"
import { userStoreMigrations } from "./user/migrations.js"
import { STORE_SCHEMA_VERSION } from "../../version.js"

/** One user's open store. */
export interface UserStore {
  readonly userId: string
  readonly sql: SqlClient.SqlClient
}

const USER_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/

/** A user_id names a directory, so only the allowlist passes (no dots first, no separators). */
export const validateUserId = (userId: string) =>
  USER_ID.test(userId)
    ? Effect.succeed(userId)
    : Effect.fail(new InvalidScope({
      message: `user_id '${userId}' is not a valid scope: use 1 to 128 of A-Z a-z 0-9 . _ -, starting with a letter or digit`,
      details: {}
    }))

interface Entry {
  readonly store: UserStore
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

export const STORE_FILE = "store.db"

/**
 * The open per-user stores: at most SERVICE_STORE_CACHE_MAX of them, least recently used closed
 * first. A store in use, or idle for less than IDLE_GRACE, is never closed: the cap is exceeded
 * instead until it is released and its grace is over. Concurrent users of one store share one
 * connection, which serializes writes.
 */
export class StoreCache extends Effect.Service<StoreCache>()("Memory/StoreCache", {
  scoped: Effect.gen(function*() {
    const { dataRoot, storeCacheMax } = yield* AppConfig
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
      Effect.gen(function*() {
        const directory = NodePath.join(dataRoot, userId)
        const scope = yield* Scope.make()
        const unavailable = (cause: string) =>
          new StoreUnavailable({
            message: `could not open the store for user_id='${userId}': ${cause}`,
            details: { user_id: userId, cause }
          })
        const filename = NodePath.join(directory, STORE_FILE)
        const sql = yield* Effect.try({
          try: () => NodeFs.mkdirSync(directory, { recursive: true }),
          catch: (error) => unavailable(`the store directory cannot be created (${(error as Error).message})`)
        }).pipe(
          Effect.zipRight(openMigrated({
            filename,
            migrations: userStoreMigrations,
            latest: STORE_SCHEMA_VERSION,
            extensions: [SqliteVec.getLoadablePath()],
            onTransactionEnd: checkpointer.transactionEnded(filename)
          })),
          // Checkpoints run on the checkpointer's thread; one still running is waited for before the connection closes.
          Effect.tap((opened) => opened`PRAGMA wal_autocheckpoint = ${opened.literal(String(FOREGROUND_CHECKPOINT_PAGES))}`),
          Effect.tap(() => Effect.addFinalizer(() => checkpointer.closing(filename))),
          Scope.extend(scope),
          Effect.provideService(Reactivity.Reactivity, reactivity),
          Effect.catchTags({
            SchemaNewer: ({ found, supported }) =>
              Effect.fail(unavailable(`StoreVersionError. The store has schema ${found}, newer than this build's ${supported}; run a newer build`)),
            SqlError: (error) => Effect.fail(unavailable(`SqlError. ${error.message}`)),
            MigrationError: (error) => Effect.fail(unavailable(`MigrationError. ${error.message}`))
          }),
          Effect.tapError(() => Scope.close(scope, Exit.void))
        )
        return { store: { userId, sql }, scope, users: 0, idleSince: 0 } satisfies Entry
      })

    /** Takes a store for the enclosing scope; none when it does not exist and `create` is false. */
    const acquire = (userId: string, create: boolean) =>
      Effect.gen(function*() {
        yield* validateUserId(userId)
        const pendingErase = yield* guard.withPermits(1)(Effect.sync(() => erasing.get(userId)))
        if (pendingErase !== undefined) yield* Deferred.await(pendingErase)
        const entry = yield* guard.withPermits(1)(Effect.gen(function*() {
          const cached = entries.get(userId)
          if (cached !== undefined) {
            entries.delete(userId)
            entries.set(userId, cached)
            cached.users++
            return Option.some(cached)
          }
          if (!create && !NodeFs.existsSync(NodePath.join(dataRoot, userId, STORE_FILE))) return Option.none<Entry>()
          const opened = yield* open(userId)
          opened.users = 1
          entries.set(userId, opened)
          yield* closeIdleOverCap
          return Option.some(opened)
        }))
        if (Option.isNone(entry)) return Option.none<UserStore>()
        yield* Effect.addFinalizer(() =>
          guard.withPermits(1)(Effect.gen(function*() {
            entry.value.users--
            if (entry.value.users === 0) entry.value.idleSince = yield* Clock.currentTimeMillis
            yield* closeIdleOverCap
          }))
        )
        return Option.some(entry.value.store)
      })

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
        const directory = NodePath.join(dataRoot, userId)
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
      write: <A, E, R>(userId: string, use: (store: UserStore) => Effect.Effect<A, E, R>) =>
        Effect.scoped(Effect.flatMap(acquire(userId, true), Option.match({
          onNone: () => Effect.dieMessage("a store opened for writing is always present"),
          onSome: use
        }))),
      /** Runs `use` with the user's store if it exists; `absent` otherwise. A read never creates one. */
      read: <A, E, R>(userId: string, use: (store: UserStore) => Effect.Effect<A, E, R>, absent: () => A) =>
        Effect.scoped(Effect.flatMap(acquire(userId, false), Option.match({ onNone: () => Effect.succeed(absent()), onSome: use }))),
      erase,
      /** How many stores are open now. */
      openCount: Effect.sync(() => entries.size)
    } as const
  }),
  dependencies: [Reactivity.layer]
}) {}
