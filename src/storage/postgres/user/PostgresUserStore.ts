import type { SqlError } from "@effect/sql"
import { Clock, Effect, Layer, Option } from "effect"
import { validateUserId } from "../../../domain/userId.js"
import { type StoreError, UserStore, type UserStoreOperations } from "../../UserStore.js"
import { orUnavailable, PostgresDatabase, PostgresLockSessions } from "../database.js"
import { purgeWords } from "./forget.js"
import { UserPortability } from "../transfer/portability.js"
import { UserGraph } from "./graph.js"
import { UserReads } from "./reads.js"
import { UserRecall } from "./recall.js"
import { UserReembed } from "./reembed.js"
import { archiveAllMemories, archiveMemory, correctMemory, embedTurns, ingestSession, purgeMemory, settleProfile } from "./units.js"
import { makeWrittenUsers } from "../../outboxUsers.js"
import { outboxUsers, UserOutbox } from "./outbox.js"
import { MAINTENANCE_LOCKS, sessionLock, WEBHOOK_LOCKS } from "./sessionLocks.js"
import { makeVectorIndexes } from "./vectorIndexes.js"
import { clock, lockedTransaction, UserWrites } from "./writes.js"
import { span } from "../../../util/span.js"

const OUTBOX_SCAN_INTERVAL_MS = 1_000

/**
 * The user store on PostgreSQL: every user's data in shared tables, each statement bounded to
 * one user. A statement's failure is a defect. With webhooks on, the outbox is filled by the
 * database (see webhookTrigger.ts).
 */
export const postgresUserStore = (webhooks: boolean) => Layer.effect(
  UserStore,
  Effect.gen(function*() {
    const sql = yield* PostgresDatabase
    const lockSessions = yield* PostgresLockSessions
    const indexes = makeVectorIndexes()
    const written = yield* makeWrittenUsers(webhooks)
    let outboxScannedAt = Number.NEGATIVE_INFINITY

    const run = <A, R, E = SqlError.SqlError>(
      name: string,
      userId: string,
      use: (userId: string) => Effect.Effect<A, E, R>
    ): Effect.Effect<A, StoreError | Exclude<E, SqlError.SqlError>, R> =>
      Effect.flatMap(validateUserId(userId), (valid) => orUnavailable(use(valid))).pipe(span(`UserStore.${name}`))

    const known = (userId: string) =>
      Effect.map(sql<{ readonly user_id: string }>`SELECT user_id FROM users WHERE user_id = ${userId}`, (rows) => rows.length > 0)

    /** Runs `use` for a user with data; none for one without. */
    const ifKnown = <A>(userId: string, use: Effect.Effect<A, SqlError.SqlError>) =>
      Effect.flatMap(known(userId), (present) => present ? Effect.map(use, Option.some) : Effect.succeed(Option.none<A>()))

    return {
      provision: (userId) => run("provision", userId, () => Effect.flatMap(clock, ({ now }) => UserWrites(sql, userId).ensureUser(now)).pipe(Effect.asVoid)),
      erase: (userId) =>
        run("erase", userId, () => lockedTransaction(sql, userId, (writes) => writes.eraseUser)),

      writeSession: (userId, write, options) => written.after(userId, run("writeSession", userId, () => ingestSession(sql, userId, write, options))),
      correct: (userId, correction) => written.after(userId, run("correct", userId, () => correctMemory(sql, userId, correction))),
      archive: (userId, memoryId, audit) => written.after(userId, run("archive", userId, () => archiveMemory(sql, userId, memoryId, audit))),
      purge: (userId, memoryId, audit) => written.after(userId, run("purge", userId, () => purgeMemory(sql, userId, memoryId, audit))),
      purgeWords: (userId, memoryId) => run("purgeWords", userId, () => purgeWords(sql, userId, memoryId)),
      archiveAll: (userId, audit) => written.after(userId, run("archiveAll", userId, () => ifKnown(userId, archiveAllMemories(sql, userId, audit)))),
      embedTurns: (userId, model, turns) => run("embedTurns", userId, () => turns.length === 0 ? Effect.void : embedTurns(sql, userId, model, turns)),
      settleProfile: (userId, settle) => written.after(userId, run("settleProfile", userId, () => settleProfile(sql, userId, settle))),

      appliedJob: (userId, jobId) => run("appliedJob", userId, () => Effect.map(UserReads(sql, userId).appliedJob(jobId), Option.fromNullable)),
      fact: (userId, factId) => run("fact", userId, () => Effect.map(UserReads(sql, userId).fact(factId), Option.fromNullable)),
      factWithEntities: (userId, factId) =>
        run("factWithEntities", userId, () => {
          const reads = UserReads(sql, userId)
          return Effect.all({ fact: reads.fact(factId), entities: reads.entitiesOf(factId) })
        }),
      currentFacts: (userId, options) => run("currentFacts", userId, () => UserReads(sql, userId).currentFacts(options)),
      events: (userId, options) => run("events", userId, () => UserReads(sql, userId).events(options)),

      recall: (userId, query) => run("recall", userId, () => UserRecall(sql, userId, indexes).legs(query)),
      provenance: (userId, factIds) => run("provenance", userId, () => UserReads(sql, userId).provenance(factIds)),
      similarFacts: (userId, options) => run("similarFacts", userId, () => UserRecall(sql, userId, indexes).similarFacts(options)),
      nearestFacts: (userId, options) => run("nearestFacts", userId, () => UserRecall(sql, userId, indexes).nearestFacts(options)),

      entityTimeline: (userId, options) => run("entityTimeline", userId, () => UserGraph(sql, userId).entityTimeline(options)),
      explore: (userId, options) => run("explore", userId, () => UserGraph(sql, userId).explore(options)),

      staleEntities: (userId, order, limit) => run("staleEntities", userId, () => UserReads(sql, userId).staleEntities(order, limit)),
      staleCount: (userId) => run("staleCount", userId, () => UserReads(sql, userId).staleCount),
      profileFacts: (userId, entityId) => run("profileFacts", userId, () => UserReads(sql, userId).profileFacts(entityId)),
      maintenanceLock: (userId) => run("maintenanceLock", userId, () => sessionLock(lockSessions, MAINTENANCE_LOCKS, userId)),

      outbox: {
        head: (userId, limit) => run("outbox.head", userId, () => UserOutbox(sql, userId).head(limit)),
        removeThrough: (userId, seq) => run("outbox.removeThrough", userId, () => UserOutbox(sql, userId).removeThrough(seq)),
        postpone: (userId, seq, attempts, nextAttemptAt) =>
          run("outbox.postpone", userId, () => UserOutbox(sql, userId).postpone(seq, attempts, nextAttemptAt)),
        trim: (userId, keep) => run("outbox.trim", userId, () => UserOutbox(sql, userId).trim(keep)),
        // Other replicas' writes and those before a restart are found in the table, looked at
        // once a second at most (a receiver long down leaves it large); this process's at once.
        users: Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          if (now - outboxScannedAt < OUTBOX_SCAN_INTERVAL_MS) return yield* written.take
          outboxScannedAt = now
          return [...yield* orUnavailable(outboxUsers(sql)), ...yield* written.take]
        }),
        claim: (userId) => run("outbox.claim", userId, () => sessionLock(lockSessions, WEBHOOK_LOCKS, userId)),
        pending: (userId) => run("outbox.pending", userId, () => UserOutbox(sql, userId).pending),
        written: written.next
      },

      reembed: {
        backlog: (userId, space, limit) => run("reembed.backlog", userId, () => UserReembed(sql, userId).backlog(space, limit)),
        remaining: (userId, space) => run("reembed.remaining", userId, () => UserReembed(sql, userId).remaining(space)),
        store: (userId, space, rows) => run("reembed.store", userId, () => UserReembed(sql, userId).store(space, rows))
      },

      portability: {
        holds: (userId) => run("portability.holds", userId, (valid) => UserPortability(sql, valid).holds),
        space: (userId) => run("portability.space", userId, (valid) => UserPortability(sql, valid).space),
        page: (userId, table, page, vectors) => run("portability.page", userId, (valid) => UserPortability(sql, valid).page(table, page, vectors)),
        load: (userId, load) => written.after(userId, run("portability.load", userId, (valid) => UserPortability(sql, valid).load(load)))
      },

      inventory: orUnavailable(Effect.gen(function*() {
        // A user's share of the database, estimated as the size of their facts, turns and events with their vectors.
        const users = yield* sql<{ readonly user_id: string; readonly bytes: number }>`
          SELECT u.user_id, (coalesce(f.bytes, 0) + coalesce(t.bytes, 0) + coalesce(e.bytes, 0))::bigint AS bytes
          FROM users u
          LEFT JOIN (SELECT user_id, sum(pg_column_size(f.*)) AS bytes FROM facts f GROUP BY user_id) f USING (user_id)
          LEFT JOIN (SELECT user_id, sum(pg_column_size(t.*)) AS bytes FROM turns t GROUP BY user_id) t USING (user_id)
          LEFT JOIN (SELECT user_id, sum(pg_column_size(e.*)) AS bytes FROM events e GROUP BY user_id) e USING (user_id)
          ORDER BY u.user_id`
        const statuses = yield* sql<{ readonly status: string; readonly n: number }>`SELECT status, count(*) AS n FROM facts GROUP BY status`
        return { users, memoriesByStatus: Object.fromEntries(statuses.map((row) => [row.status, row.n])) }
      })).pipe(span("UserStore.inventory")),
      openStores: Effect.succeed(0)
    } satisfies UserStoreOperations
  })
)
