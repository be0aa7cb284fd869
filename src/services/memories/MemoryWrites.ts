import { Effect, Option } from "effect"
import { Conflict, Forbidden, NotImplemented, Unprocessable } from "../../api/errors.js"
import { DeleteResult, type UpdateMemoryRequest, UpdateResult, UserDeleteResult } from "../../api/MemoriesApi.js"
import { AppConfig } from "../../config/AppConfig.js"
import type { AuditContext } from "../../domain/audit.js"
import { type CleanFact, FACT_KINDS } from "../../domain/facts.js"
import { newSessionId } from "../../domain/ids.js"
import { validateUserId } from "../../domain/userId.js"
import { Embedder } from "../../llm/Embedder.js"
import { LlmProvider } from "../../llm/LlmProvider.js"
import { type FactRow, inScope, type ScopeFilter } from "../../domain/records.js"
import type { FactPlan } from "../../storage/sessionWrite.js"
import { ControlStore } from "../../storage/ControlStore.js"
import { NOTHING_PURGED, type RemovedPassage } from "../../storage/forgetting.js"
import { type Forgotten, UserStore } from "../../storage/UserStore.js"
import { embedForWrite, embeddingModel } from "../ingest/embedWrites.js"
import { QUOTING_KINDS } from "../jobs/Jobs.js"
import { Webhooks } from "../webhooks/Webhooks.js"
import { extractFacts } from "../ingest/Extractor.js"
import {
  type CombinedScope,
  combinedScope,
  memoryNotFound,
  narrows,
  resolveSessionTime,
  type ScopeKeys,
  scopeFilter,
  type ScopeParams,
  toMemory
} from "./memoryRecords.js"
import { span } from "../../util/span.js"

/** Changes to existing memories; each is one transaction with its audit event. */
export class MemoryWrites extends Effect.Service<MemoryWrites>()("Memory/MemoryWrites", {
  effect: Effect.gen(function*() {
    const config = yield* AppConfig
    const store = yield* UserStore
    const control = yield* ControlStore
    const embedder = yield* Embedder
    const llm = yield* LlmProvider
    const webhooks = yield* Webhooks
    const nothingExtracted = new Unprocessable({
      message: "no memory could be extracted from `content` — refusing to close the existing one, which would leave no current version",
      details: {}
    })
    const purgeForbidden = new Forbidden({
      message: "purge is disabled on this deployment; unset ?purge=true to archive instead, or set SERVICE_ALLOW_PURGE=true",
      details: {}
    })

    /**
     * Embeds again the turns forgetting rewrote (their old vectors are gone already). The memory
     * is forgotten whatever happens here: a turn left without a vector is still found by its words.
     */
    const reembed = <A>(userId: string, forgotten: Option.Option<Forgotten<A>>): Effect.Effect<void> =>
      Option.match(Option.all([embedder.active, Option.filter(forgotten, ({ reembed: turns }) => turns.length > 0)]), {
        onNone: () => Effect.void,
        onSome: ([active, { reembed: turns }]) =>
          active.embed(turns.map((turn) => turn.content)).pipe(
            Effect.flatMap((vectors) => store.embedTurns(userId, active.model, turns.map((turn, i) => ({ ...turn, vector: vectors[i]! })))),
            Effect.catchAll((error) =>
              Effect.logWarning("turns rewritten by forgetting were left without vectors").pipe(
                Effect.annotateLogs({ user_id: userId, turns: turns.length, cause: error.message })
              ))
          )
      })

    /** The embedder's remembered queries dropped after a purge: one may hold the words erased. */
    const forgetQueries = Option.match(embedder.active, { onNone: () => Effect.void, onSome: (active) => active.forgetQueries })

    const archive = (userId: string, memoryId: string, audit: AuditContext) =>
      Effect.gen(function*() {
        const forgotten = yield* store.archive(userId, memoryId, audit)
        if (Option.isSome(forgotten)) yield* forgetInJobs(userId, forgotten.value.words)
        yield* reembed(userId, forgotten)
        return new DeleteResult({
          id: memoryId,
          deleted: Option.isSome(forgotten),
          already_deleted: Option.exists(forgotten, ({ already }) => already),
          purged: false,
          cascaded: {}
        })
      })

    /** Words taken out of the results of the user's finished jobs (an answer quotes its evidence). */
    const scrubJobs = (userId: string, words: ReadonlyArray<RemovedPassage>) =>
      words.length === 0 ? Effect.succeed(0) : control.jobs.forgetWords(userId, words)

    /**
     * Once forgetting is committed, the user's running jobs whose results quote memories start
     * again from what is left (what they read may hold the words, and a result they would finish
     * with is refused), then finished results lose the words.
     */
    const forgetInJobs = (userId: string, words: ReadonlyArray<RemovedPassage>) =>
      Effect.gen(function*() {
        const restarted = yield* control.jobs.fence(userId, QUOTING_KINDS)
        const changed = yield* scrubJobs(userId, words)
        if (restarted + changed > 0) {
          yield* Effect.logInfo("forgotten words taken out of jobs").pipe(Effect.annotateLogs({ user_id: userId, restarted, results_changed: changed }))
        }
      })

    // The words leave the job results before the store and once more after it (the purge may
    // have found more meanwhile, and a job may have finished since): a purge cut off in between
    // leaves none in either.
    const purge = (userId: string, memoryId: string, audit: AuditContext) =>
      Effect.gen(function*() {
        const ahead = yield* store.purgeWords(userId, memoryId)
        yield* scrubJobs(userId, ahead)
        const forgotten = yield* store.purge(userId, memoryId, audit)
        if (Option.isSome(forgotten)) yield* forgetInJobs(userId, forgotten.value.words)
        yield* forgetQueries
        yield* reembed(userId, forgotten)
        return new DeleteResult({
          id: memoryId,
          deleted: Option.isSome(forgotten),
          already_deleted: false,
          purged: true,
          cascaded: Option.match(forgotten, { onNone: () => NOTHING_PURGED, onSome: ({ cascaded }) => cascaded })
        })
      })

    /** The memory a correction targets, if it can be corrected: current, and within the request's scope. */
    const correctable = (old: FactRow | undefined, memoryId: string, scope: CombinedScope) => {
      if (old === undefined || old.status === "archived" || !scope.admits(old)) return Effect.fail(memoryNotFound(memoryId))
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
     * the new version's source. One transaction with the events of both. Scope keys narrow from
     * the body and from the query alike.
     */
    const update = (memoryId: string, request: UpdateMemoryRequest, queryScope: ScopeKeys, audit: AuditContext) =>
      Effect.gen(function*() {
        const scope = combinedScope(request, queryScope)
        const userId = yield* validateUserId(request.user_id)
        const sessionTime = yield* resolveSessionTime(request.session_time)
        const content = request.content.trim()
        if (content === "") return yield* nothingExtracted
        const found = yield* store.factWithEntities(userId, memoryId)
        const old = yield* correctable(found.fact, memoryId, scope)
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
        // Checked again inside the write: another correction may have landed meanwhile.
        const outcome = yield* store.correct(userId, {
          memoryId,
          scope: scope.filter,
          winner,
          session: {
            sessionId,
            sessionTime,
            turns,
            turnVectors: Option.getOrUndefined(Option.map(vectors, (all) => all.slice(0, 1))),
            embeddingModel: embeddingModel(embedder.active),
            plans,
            extractedBy: Option.match(llm.active, {
              onNone: () => ({ method: "verbatim" }),
              onSome: (active) => ({ provider: active.provider, model: active.model })
            }),
            audit
          }
        })
        const created = outcome._tag === "Refused" ? yield* correctable(outcome.current, memoryId, scope) : outcome.fact
        return new UpdateResult({ memory: toMemory(userId, created), superseded_id: memoryId, valid_until: facts[winner]!.occurred ?? sessionTime })
      }).pipe(span("MemoryWrites.update"))

    /**
     * A request that narrows acts only on a memory within its scope: one stamped outside it, or
     * none by that id, is 404 as GET answers, and nothing changes. Stamps never change, so the
     * check holds for the write that follows.
     */
    const withinScope = (userId: string, memoryId: string, scope: ScopeFilter) =>
      narrows(scope)
        ? Effect.flatMap(store.fact(userId, memoryId), (found) =>
          Option.exists(found, (row) => inScope(row, scope)) ? Effect.void : Effect.fail(memoryNotFound(memoryId)))
        : Effect.void

    /** Archive by default; purge only when the deployment allows it, checked before anything opens. */
    const remove = (memoryId: string, params: ScopeParams & { readonly purge: boolean }, audit: AuditContext) =>
      Effect.gen(function*() {
        if (params.purge && !config.allowPurge) return yield* purgeForbidden
        const userId = yield* validateUserId(params.user_id)
        yield* withinScope(userId, memoryId, scopeFilter(params))
        return yield* params.purge ? purge(userId, memoryId, audit) : archive(userId, memoryId, audit)
      }).pipe(span("MemoryWrites.remove", { attributes: { purge: params.purge } }))

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
          const existed = yield* webhooks.announceErase(userId, audit, store.erase(userId))
          // Nothing of theirs is kept in jobs either: answers under way start again from nothing.
          yield* control.jobs.fence(userId, QUOTING_KINDS)
          yield* control.jobs.forgetUser(userId)
          yield* forgetQueries
          yield* Effect.logInfo("user store erased").pipe(Effect.annotateLogs({ user_id: userId, actor: audit.actor, existed }))
          return new UserDeleteResult({ user_id: userId, deleted: existed, purged: true, archived: 0 })
        }
        const forgotten = yield* store.archiveAll(userId, audit)
        if (Option.isSome(forgotten)) yield* forgetInJobs(userId, forgotten.value.words)
        yield* reembed(userId, forgotten)
        return new UserDeleteResult({
          user_id: userId,
          deleted: Option.isSome(forgotten),
          purged: false,
          archived: Option.match(forgotten, { onNone: () => 0, onSome: ({ archived }) => archived })
        })
      }).pipe(span("MemoryWrites.removeUser", { attributes: { purge: params.purge } }))

    return { update, remove, removeUser } as const
  })
}) {}
