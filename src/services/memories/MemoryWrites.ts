import { Clock, Effect, Option } from "effect"
import { Conflict, Forbidden, NotFound, NotImplemented, Unprocessable } from "../../api/errors.js"
import { DeleteResult, type UpdateMemoryRequest, UpdateResult, UserDeleteResult } from "../../api/MemoriesApi.js"
import { AppConfig } from "../../config/AppConfig.js"
import { insertEvent } from "../../storage/sqlite/user/events.js"
import { LlmProvider } from "../../llm/LlmProvider.js"
import { FACT_KINDS } from "../../llm/tasks.js"
import { entitiesOf } from "../../storage/sqlite/user/factWrites.js"
import { FactQueries, type FactRow } from "../../storage/sqlite/user/facts.js"
import { purgeFact } from "../../storage/sqlite/user/purge.js"
import { utcTimestamp } from "../../util/timestamps.js"
import type { AuditContext } from "../../domain/audit.js"
import { Embedder } from "../../llm/Embedder.js"
import { embedForWrite } from "../ingest/embedWrites.js"
import { type CleanFact, extractFacts } from "../ingest/Extractor.js"
import { newSessionId } from "../ingest/Ingest.js"
import { inScope, resolveSessionTime, scopeFilter, type ScopeParams, toMemory } from "./memoryRecords.js"
import { type FactPlan, writeSession } from "../../storage/sqlite/user/sessionWrites.js"
import { StoreCache, validateUserId } from "../../storage/sqlite/StoreCache.js"

const NOTHING_PURGED = { vectors: 0, fact_entity_roles: 0, fact_edges: 0, fact_sources: 0 }

/** Changes to existing memories; each is one transaction with its audit event. */
export class MemoryWrites extends Effect.Service<MemoryWrites>()("Memory/MemoryWrites", {
  effect: Effect.gen(function*() {
    const config = yield* AppConfig
    const stores = yield* StoreCache
    const embedder = yield* Embedder
    const llm = yield* LlmProvider
    const nothingExtracted = new Unprocessable({
      message: "no memory could be extracted from `content` — refusing to close the existing one, which would leave no current version",
      details: {}
    })
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

    /** The memory a correction targets, if it can be corrected: current, and within the request's scope. */
    const correctable = (old: FactRow | undefined, memoryId: string, request: UpdateMemoryRequest) => {
      if (old === undefined || old.status === "archived" || !inScope(old, scopeFilter(request))) {
        return Effect.fail(new NotFound({ message: `memory '${memoryId}' not found`, details: {} }))
      }
      if (old.status !== "active") {
        return Effect.fail(
          new Conflict({
            message: `memory '${memoryId}' is ${old.status}${old.superseded_by === null ? "" : ` by '${old.superseded_by}'`}; correct its current version instead`,
            details: { status: old.status, superseded_by: old.superseded_by }
          })
        )
      }
      return Effect.succeed(old)
    }

    /**
     * Supersedes a memory with a corrected version: the correction is kept as a one-turn session,
     * the new version's source. One transaction with the events of both.
     */
    const update = (memoryId: string, request: UpdateMemoryRequest, audit: AuditContext) =>
      Effect.gen(function*() {
        const userId = yield* validateUserId(request.user_id)
        const sessionTime = yield* resolveSessionTime(request.session_time)
        const content = request.content.trim()
        if (content === "") return yield* nothingExtracted
        const found = yield* stores.read(userId, ({ sql }) =>
          Effect.all({ fact: FactQueries(sql).find(memoryId), entities: entitiesOf(sql, memoryId) }), () => ({ fact: undefined, entities: [] }))
        const old = yield* correctable(found.fact, memoryId, request)
        const sessionId = request.session_id ?? newSessionId()
        const turns = [{ role: "user", content }]
        const replaces = { action: "update" as const, target: old, reason: `corrected by ${audit.actor} in session ${sessionId}` }
        const facts: ReadonlyArray<CleanFact> = yield* Option.match(llm.active, {
          onNone: () =>
            Effect.succeed([{
              statement: content,
              kind: FACT_KINDS.find((kind) => kind === old.kind) ?? "fact",
              confidence: 1,
              occurred: sessionTime,
              timePrecision: null,
              turns: [1],
              entities: found.entities,
              predicate: ""
            }]),
          onSome: (active) => Effect.map(extractFacts(active, { sessionId, sessionTime, turns }), (extracted) => extracted.facts)
        })
        if (facts.length === 0) return yield* nothingExtracted
        // The newest fact the correction states is the memory's new version.
        const winner = facts.reduce((best, fact, i) => (fact.occurred ?? "") >= (facts[best]!.occurred ?? "") ? i : best, 0)
        const vectors = yield* embedForWrite(embedder.active, [content, ...facts.map((fact) => fact.statement)])
        const plans = facts.map((fact, i): FactPlan => ({
          fact,
          decision: i === winner ? replaces : { action: "add" },
          vector: Option.isSome(vectors) ? vectors.value[i + 1] : undefined,
          metadata: i === winner ? { corrects: memoryId, ...(Option.isNone(llm.active) ? { time_source: "session_time" } : {}) } : {}
        }))
        return yield* stores.write(userId, ({ sql }) =>
          sql.withTransaction(Effect.gen(function*() {
            // Checked again inside the write: another correction may have landed meanwhile.
            const current = yield* correctable(yield* FactQueries(sql).find(memoryId), memoryId, request)
            const millis = yield* Clock.currentTimeMillis
            const written = yield* writeSession(sql, embedder.active, {
              sessionId,
              sessionTime,
              turns,
              turnVectors: Option.map(vectors, (all) => all.slice(0, 1)),
              scope: { agent_id: current.agent_id, run_id: current.run_id, project_id: current.project_id },
              plans,
              extractedBy: Option.match(llm.active, {
                onNone: () => ({ method: "verbatim" }),
                onSome: (active) => ({ provider: active.provider, model: active.model })
              }),
              audit,
              now: utcTimestamp(millis),
              epochSeconds: millis / 1000
            })
            const newId = written.facts[winner]!.factId
            const created = yield* FactQueries(sql).find(newId)
            if (created === undefined) return yield* Effect.dieMessage("the new version was not written")
            return new UpdateResult({ memory: toMemory(userId, created), superseded_id: memoryId, valid_until: facts[winner]!.occurred ?? sessionTime })
          })))
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
