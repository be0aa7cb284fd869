import { type SqlClient, SqlError } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import * as NodeFs from "node:fs"
import { AppConfig } from "../../config/AppConfig.js"
import { validateUserId } from "../../domain/userId.js"
import { type StoreError, UserStore, type UserStoreOperations } from "../UserStore.js"
import { DataRootLock } from "./DataRootLock.js"
import { makeWrittenUsers } from "../outboxUsers.js"
import { NOTHING_SETTLED } from "../profileSettlement.js"
import { userDirectories, userInventory } from "./inventory.js"
import { StoreCache } from "./StoreCache.js"
import { StorePortability } from "./transfer/portability.js"
import { storeFilePath } from "./storeFile.js"
import { appliedJobResult } from "./user/appliedJobs.js"
import { listEvents } from "./user/events.js"
import { entitiesOf } from "./user/factWrites.js"
import { FactQueries } from "./user/facts.js"
import { purgeWords } from "./user/forget.js"
import { entityTimeline, explore } from "./user/graphReads.js"
import { archiveAllMemories, archiveMemory, correctMemory, embedTurns, ingestSession, purgeMemory } from "./user/memoryWrites.js"
import { outboxDue, StoreOutbox } from "./user/outbox.js"
import { settleProfile } from "./user/profileWrites.js"
import { ProfileQueries } from "./user/profiles.js"
import { recallLegs } from "./user/recall/legs.js"
import { Reembed } from "./user/reembed.js"
import { similarFacts } from "./user/recall/lexical.js"
import { nearestFacts } from "./user/recall/vector.js"
import { RetrievalQueries } from "./user/retrieval.js"
import { span } from "../../util/span.js"

type Use<A> = (sql: SqlClient.SqlClient) => Effect.Effect<A, SqlError.SqlError>

/**
 * The user store on SQLite: one file per user under the data root, opened through the store
 * cache. A statement's failure is a defect; a store that cannot be opened is `StoreUnavailable`.
 */
export const SqliteUserStoreLive = Layer.effect(
  UserStore,
  Effect.gen(function*() {
    // Stores are opened only by the process that holds the data root.
    yield* DataRootLock
    const { dataRoot, webhook } = yield* AppConfig
    const stores = yield* StoreCache
    // One process holds the data root: its own runs are all there are.
    const maintaining = new Set<string>()

    const written = yield* makeWrittenUsers(Option.isSome(webhook))
    // The first time, every store is looked at; after that, this process's writes are all there are.
    let scanned = false
    const storesWithEntries = Effect.sync(() =>
      userDirectories(dataRoot).flatMap((userId) => {
        const file = storeFilePath(dataRoot, userId)
        const due = NodeFs.existsSync(file) ? outboxDue(file) : undefined
        return due === undefined ? [] : [{ userId, due }]
      })
    )

    /** Runs on the user's store if it exists; `absent` otherwise (a read never creates a store). */
    const read = <A>(name: string, userId: string, use: Use<A>, absent: () => A): Effect.Effect<A, StoreError> =>
      stores.read(userId, ({ sql }) => use(sql), absent).pipe(Effect.catchTag("SqlError", Effect.die), span(`UserStore.${name}`))

    /** Runs on the user's store, creating it if needed. */
    const write = <A>(name: string, userId: string, use: Use<A>): Effect.Effect<A, StoreError> =>
      stores.write(userId, ({ sql }) => use(sql)).pipe(Effect.catchTag("SqlError", Effect.die), span(`UserStore.${name}`))

    return {
      provision: (userId) => write("provision", userId, () => Effect.void),
      erase: (userId) => stores.erase(userId).pipe(span("UserStore.erase")),

      writeSession: (userId, session, options) => written.after(userId, write("writeSession", userId, (sql) => ingestSession(sql, session, options))),
      correct: (userId, correction) => written.after(userId, write("correct", userId, (sql) => correctMemory(sql, correction))),
      archive: (userId, memoryId, audit) => written.after(userId, read("archive", userId, (sql) => archiveMemory(sql, memoryId, audit), Option.none)),
      // The purged words also leave the write-ahead log: its frames still hold the pages as they were.
      purge: (userId, memoryId, audit) =>
        written.after(userId, read("purge", userId, (sql) =>
          Effect.tap(purgeMemory(sql, memoryId, audit), (purged) => Option.isSome(purged) ? sql`PRAGMA wal_checkpoint(TRUNCATE)` : Effect.void), Option.none)),
      purgeWords: (userId, memoryId) => read("purgeWords", userId, (sql) => purgeWords(sql, memoryId), () => []),
      archiveAll: (userId, audit) => written.after(userId, read("archiveAll", userId, (sql) => Effect.map(archiveAllMemories(sql, audit), Option.some), Option.none)),
      embedTurns: (userId, model, turns) => read("embedTurns", userId, (sql) => embedTurns(sql, model, turns), () => undefined),
      // A user erased while their profiles were built stays erased: their store is not made again.
      settleProfile: (userId, settle) =>
        written.after(userId, read("settleProfile", userId, (sql) => settleProfile(sql, settle), () => NOTHING_SETTLED)),

      appliedJob: (userId, jobId) =>
        read("appliedJob", userId, (sql) => Effect.map(appliedJobResult(sql, jobId), Option.fromNullable), Option.none),
      fact: (userId, factId) => read("fact", userId, (sql) => Effect.map(FactQueries(sql).find(factId), Option.fromNullable), Option.none),
      factWithEntities: (userId, factId) =>
        read("factWithEntities", userId, (sql) => Effect.all({ fact: FactQueries(sql).find(factId), entities: entitiesOf(sql, factId) }), () => ({
          fact: undefined,
          entities: []
        })),
      currentFacts: (userId, { limit, now, offset, scope }) =>
        read("currentFacts", userId, (sql) => FactQueries(sql).listCurrent(scope, now, offset, limit), () => ({ rows: [], total: 0 })),
      events: (userId, options) => read("events", userId, (sql) => listEvents(sql, options), () => ({ rows: [], total: 0 })),

      recall: (userId, query) => read("recall", userId, (sql) => Effect.map(recallLegs(sql, query), Option.some), Option.none),
      provenance: (userId, factIds) =>
        read("provenance", userId, (sql) => RetrievalQueries(sql).provenance(factIds), () => ({ sources: [], roles: [] })),
      similarFacts: (userId, options) =>
        read("similarFacts", userId, (sql) => similarFacts(RetrievalQueries(sql), options), () => options.terms.map(() => [])),
      nearestFacts: (userId, options) =>
        read("nearestFacts", userId, (sql) => nearestFacts(sql, RetrievalQueries(sql), options), () => options.vectors.map(() => [])),

      entityTimeline: (userId, options) => read("entityTimeline", userId, (sql) => entityTimeline(sql, options), () => []),
      explore: (userId, options) => read("explore", userId, (sql) => explore(sql, options), Option.none),

      staleEntities: (userId, order, limit) => read("staleEntities", userId, (sql) => ProfileQueries(sql).stale(order, limit), () => []),
      staleCount: (userId) => read("staleCount", userId, (sql) => ProfileQueries(sql).staleCount, () => 0),
      profileFacts: (userId, entityId) => read("profileFacts", userId, (sql) => ProfileQueries(sql).currentFacts(entityId), () => []),
      maintenanceLock: (userId) =>
        Effect.flatMap(validateUserId(userId), (valid) =>
          Effect.acquireRelease(
            Effect.sync(() => !maintaining.has(valid) && maintaining.add(valid).has(valid)),
            (held) => held ? Effect.sync(() => maintaining.delete(valid)) : Effect.void
          )),

      outbox: {
        head: (userId, limit) => read("outbox.head", userId, (sql) => StoreOutbox(sql).head(limit), () => ({ entries: [], total: 0 })),
        removeThrough: (userId, seq) => read("outbox.removeThrough", userId, (sql) => StoreOutbox(sql).removeThrough(seq), () => undefined),
        postpone: (userId, seq, attempts, nextAttemptAt) =>
          read("outbox.postpone", userId, (sql) => StoreOutbox(sql).postpone(seq, attempts, nextAttemptAt), () => undefined),
        trim: (userId, keep) => read("outbox.trim", userId, (sql) => StoreOutbox(sql).trim(keep), () => 0),
        users: Effect.suspend(() => {
          if (scanned) return written.take
          scanned = true
          return Effect.zipWith(storesWithEntries, written.take, (found, recent) => [...found, ...recent])
        }),
        // One process holds the data root: its dispatcher is the only one.
        claim: () => Effect.succeed(true),
        pending: (userId) => read("outbox.pending", userId, (sql) => StoreOutbox(sql).pending, () => []),
        written: written.next
      },

      reembed: {
        backlog: (userId, space, limit) => read("reembed.backlog", userId, (sql) => Reembed(sql).backlog(space, limit), () => []),
        remaining: (userId, space) => read("reembed.remaining", userId, (sql) => Reembed(sql).remaining(space), () => 0),
        store: (userId, space, rows) =>
          read("reembed.store", userId, (sql) => Reembed(sql).store(space, rows), () => ({ stored: 0, remaining: 0, switched: false }))
      },

      portability: {
        holds: (userId) => read("portability.holds", userId, (sql) => StorePortability(sql).holds, () => false),
        space: (userId) => read("portability.space", userId, (sql) => StorePortability(sql).space, () => null),
        page: (userId, table, page, vectors) =>
          read("portability.page", userId, (sql) => StorePortability(sql).page(table, page, vectors), () => ({ table, rows: [] })),
        load: (userId, load) =>
          written.after(
            userId,
            stores.write(userId, ({ sql }) => StorePortability(sql).load(load)).pipe(
              Effect.catchIf((error): error is SqlError.SqlError => error instanceof SqlError.SqlError, Effect.die),
              span("UserStore.portability.load")
            )
          )
      },

      inventory: Effect.sync(() => userInventory(dataRoot)).pipe(span("UserStore.inventory")),
      openStores: stores.openCount
    } satisfies UserStoreOperations
  })
).pipe(Layer.provide(StoreCache.Default))
