import { Clock, Effect, Option } from "effect"
import { Forbidden } from "../api/errors.js"
import { DeleteResult } from "../api/MemoriesApi.js"
import { AppConfig } from "../config/AppConfig.js"
import { insertEvent } from "../store/user/events.js"
import { FactQueries } from "../store/user/facts.js"
import { purgeFact } from "../store/user/purge.js"
import { utcTimestamp } from "../util/timestamps.js"
import type { AuditContext } from "./AuditContext.js"
import { StoreCache, validateUserId } from "./StoreCache.js"

const NOTHING_PURGED = { vectors: 0, fact_entity_roles: 0, fact_edges: 0, fact_sources: 0 }

/** Changes to existing memories; each is one transaction with its audit event. */
export class MemoryWrites extends Effect.Service<MemoryWrites>()("Memory/MemoryWrites", {
  effect: Effect.gen(function*() {
    const config = yield* AppConfig
    const stores = yield* StoreCache

    const archive = (userId: string, memoryId: string, audit: AuditContext) =>
      stores.read(userId, ({ sql }) =>
        sql.withTransaction(Effect.gen(function*() {
          const fact = yield* FactQueries(sql).find(memoryId)
          if (fact === undefined) return Option.none<boolean>()
          if (fact.status === "archived") return Option.some(true)
          const now = utcTimestamp(yield* Clock.currentTimeMillis)
          yield* sql`UPDATE facts SET status = 'archived', updated_at = ${now} WHERE fact_id = ${memoryId}`
          yield* insertEvent(sql, {
            type: "memory_delete",
            memoryId,
            sessionId: fact.session_id,
            reason: `archived by ${audit.actor}`,
            details: { action: "archive", archived: true, previous_status: fact.status }
          }, audit, now)
          return Option.some(false)
        })), () => Option.none<boolean>()).pipe(
        Effect.map(Option.match({
          onNone: () => new DeleteResult({ id: memoryId, deleted: false, already_deleted: false, purged: false, cascaded: {} }),
          onSome: (already) => new DeleteResult({ id: memoryId, deleted: true, already_deleted: already, purged: false, cascaded: {} })
        }))
      )

    const purge = (userId: string, memoryId: string, audit: AuditContext) =>
      stores.read(userId, ({ sql }) =>
        sql.withTransaction(Effect.gen(function*() {
          const fact = yield* FactQueries(sql).find(memoryId)
          if (fact === undefined) return Option.none<Record<string, number>>()
          const cascaded = yield* purgeFact(sql, memoryId)
          yield* insertEvent(sql, {
            type: "memory_delete",
            memoryId,
            sessionId: fact.session_id,
            reason: `purged by ${audit.actor}`,
            details: { action: "purge", previous_status: fact.status, cascaded }
          }, audit, utcTimestamp(yield* Clock.currentTimeMillis))
          return Option.some<Record<string, number>>(cascaded)
        })), () => Option.none<Record<string, number>>()).pipe(
        Effect.map((cascaded) =>
          new DeleteResult({
            id: memoryId,
            deleted: Option.isSome(cascaded),
            already_deleted: false,
            purged: true,
            cascaded: Option.getOrElse(cascaded, () => NOTHING_PURGED)
          }))
      )

    /** Archive by default; purge only when the deployment allows it, checked before anything opens. */
    const remove = (memoryId: string, params: { readonly user_id: string; readonly purge: boolean }, audit: AuditContext) =>
      Effect.gen(function*() {
        if (params.purge && !config.allowPurge) {
          return yield* new Forbidden({
            message: "purge is disabled on this deployment; unset ?purge=true to archive instead, or set SERVICE_ALLOW_PURGE=true",
            details: {}
          })
        }
        const userId = yield* validateUserId(params.user_id)
        return yield* params.purge ? purge(userId, memoryId, audit) : archive(userId, memoryId, audit)
      }).pipe(Effect.catchTag("SqlError", Effect.die), Effect.withSpan("MemoryWrites.remove", { attributes: { purge: params.purge } }))

    return { remove } as const
  })
}) {}
