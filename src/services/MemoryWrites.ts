import { Clock, Effect, Option } from "effect"
import * as NodeCrypto from "node:crypto"
import { Conflict, Forbidden, NotFound, NotImplemented, Unprocessable } from "../api/errors.js"
import { DeleteResult, type UpdateMemoryRequest, UpdateResult, UserDeleteResult } from "../api/MemoriesApi.js"
import { AppConfig } from "../config/AppConfig.js"
import { insertEvent } from "../store/user/events.js"
import { FactQueries } from "../store/user/facts.js"
import { purgeFact } from "../store/user/purge.js"
import { supersedeFact } from "../store/user/supersede.js"
import { appendTurns, spanId } from "../store/user/turns.js"
import { utcTimestamp } from "../util/timestamps.js"
import type { AuditContext } from "./AuditContext.js"
import { Embedder } from "./Embedder.js"
import { embedForWrite, storeVectors } from "./embedWrites.js"
import { inScope, resolveSessionTime, scopeFilter, type ScopeParams, toMemory } from "./memoryRecords.js"
import { StoreCache, validateUserId } from "./StoreCache.js"

const NOTHING_PURGED = { vectors: 0, fact_entity_roles: 0, fact_edges: 0, fact_sources: 0 }

/** Changes to existing memories; each is one transaction with its audit event. */
export class MemoryWrites extends Effect.Service<MemoryWrites>()("Memory/MemoryWrites", {
  effect: Effect.gen(function*() {
    const config = yield* AppConfig
    const stores = yield* StoreCache
    const embedder = yield* Embedder
    const purgeForbidden = new Forbidden({
      message: "purge is disabled on this deployment; unset ?purge=true to archive instead, or set SERVICE_ALLOW_PURGE=true",
      details: {}
    })

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
          const cascaded = yield* purgeFact(sql, fact)
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

    /**
     * Supersedes a memory with a corrected version, stored verbatim: the correction is kept as a
     * one-turn session, which is the new version's source. One transaction with both events.
     */
    const update = (memoryId: string, request: UpdateMemoryRequest, audit: AuditContext) =>
      Effect.gen(function*() {
        const userId = yield* validateUserId(request.user_id)
        const sessionTime = yield* resolveSessionTime(request.session_time)
        const content = request.content.trim()
        if (content === "") {
          return yield* new Unprocessable({
            message: "no memory could be extracted from `content` — refusing to close the existing one, which would leave no current version",
            details: {}
          })
        }
        const notFound = new NotFound({ message: `memory '${memoryId}' not found`, details: {} })
        const vectors = yield* embedForWrite(embedder.active, [content])
        return yield* stores.read(userId, ({ sql }) =>
          sql.withTransaction(Effect.gen(function*() {
            const old = yield* FactQueries(sql).find(memoryId)
            if (old === undefined || old.status === "archived" || !inScope(old, scopeFilter(request))) return yield* notFound
            if (old.status !== "active") {
              return yield* new Conflict({
                message: `memory '${memoryId}' is ${old.status}${old.superseded_by === null ? "" : ` by '${old.superseded_by}'`}; correct its current version instead`,
                details: { status: old.status, superseded_by: old.superseded_by }
              })
            }
            const millis = yield* Clock.currentTimeMillis
            const now = utcTimestamp(millis)
            const sessionId = request.session_id ?? NodeCrypto.randomUUID().replaceAll("-", "")
            const { firstPosition, seqs } = yield* appendTurns(sql, {
              sessionId,
              sessionTime,
              turns: [{ role: "user", content }],
              scope: { agent_id: old.agent_id, run_id: old.run_id, project_id: old.project_id },
              now
            })
            const newFactId = `fact_${NodeCrypto.randomUUID()}`
            yield* supersedeFact(sql, old, {
              newFactId,
              content,
              sessionId,
              sessionTime,
              spanId: spanId(sessionId, firstPosition),
              now,
              epochSeconds: millis / 1000
            })
            const created = yield* FactQueries(sql).find(newFactId)
            if (created === undefined) return yield* Effect.dieMessage("the new version was not written")
            yield* storeVectors(sql, embedder.active, "turn", seqs, vectors)
            yield* storeVectors(sql, embedder.active, "fact", [created.seq], vectors)
            yield* insertEvent(sql, {
              type: "memory_add",
              memoryId: newFactId,
              sessionId,
              reason: `correction of '${memoryId}' stored verbatim`,
              details: { action: "correct", corrects: memoryId }
            }, audit, now)
            yield* insertEvent(sql, {
              type: "memory_supersede",
              memoryId,
              sessionId,
              reason: `corrected by ${audit.actor} in session ${sessionId}`,
              details: { action: "supersede", new_memory_id: newFactId, superseded_id: memoryId, valid_until: sessionTime }
            }, audit, now)
            return new UpdateResult({ memory: toMemory(userId, created), superseded_id: memoryId, valid_until: sessionTime })
          })), () => undefined).pipe(Effect.flatMap((result) => result === undefined ? Effect.fail(notFound) : Effect.succeed(result)))
      }).pipe(Effect.catchTag("SqlError", Effect.die), Effect.withSpan("MemoryWrites.update"))

    /** Archive by default; purge only when the deployment allows it, checked before anything opens. */
    const remove = (memoryId: string, params: { readonly user_id: string; readonly purge: boolean }, audit: AuditContext) =>
      Effect.gen(function*() {
        if (params.purge && !config.allowPurge) return yield* purgeForbidden
        const userId = yield* validateUserId(params.user_id)
        return yield* params.purge ? purge(userId, memoryId, audit) : archive(userId, memoryId, audit)
      }).pipe(Effect.catchTag("SqlError", Effect.die), Effect.withSpan("MemoryWrites.remove", { attributes: { purge: params.purge } }))

    /** Every memory of a user: archived in one transaction with one event, or the whole store erased. */
    const removeUser = (params: ScopeParams & { readonly purge: boolean }, audit: AuditContext) =>
      Effect.gen(function*() {
        const narrowed = (["agent_id", "run_id", "project_id"] as const).filter((key) => params[key] !== undefined)
        if (narrowed.length > 0) {
          return yield* new NotImplemented({
            message: `${narrowed.join(", ")} cannot narrow a whole-user delete; delete memories by id to act on one scope`,
            details: { scope_keys: narrowed }
          })
        }
        if (params.purge && !config.allowPurge) return yield* purgeForbidden
        const userId = yield* validateUserId(params.user_id)
        if (params.purge) {
          const existed = yield* stores.erase(userId)
          yield* Effect.logInfo("user store erased").pipe(Effect.annotateLogs({ user_id: userId, actor: audit.actor, existed }))
          return new UserDeleteResult({ user_id: userId, deleted: existed, purged: true, archived: 0 })
        }
        const archived = yield* stores.read(userId, ({ sql }) =>
          sql.withTransaction(Effect.gen(function*() {
            const now = utcTimestamp(yield* Clock.currentTimeMillis)
            const [row] = yield* sql<{ readonly n: number }>`SELECT count(*) AS n FROM facts WHERE status = 'active'`
            yield* sql`UPDATE facts SET status = 'archived', updated_at = ${now} WHERE status = 'active'`
            yield* insertEvent(sql, {
              type: "memory_delete",
              memoryId: null,
              sessionId: null,
              reason: `all memories archived by ${audit.actor}`,
              details: { action: "archive_user", archived: row?.n ?? 0 }
            }, audit, now)
            return Option.some(row?.n ?? 0)
          })), () => Option.none<number>())
        return new UserDeleteResult({ user_id: userId, deleted: Option.isSome(archived), purged: false, archived: Option.getOrElse(archived, () => 0) })
      }).pipe(Effect.catchTag("SqlError", Effect.die), Effect.withSpan("MemoryWrites.removeUser", { attributes: { purge: params.purge } }))

    return { update, remove, removeUser } as const
  })
}) {}
