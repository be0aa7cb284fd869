import type { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import type { AuditContext } from "../../../domain/audit.js"
import { archiveAllEvent, archiveEvent, profileAddedEvent, profileRetiredEvent, profileSupersededEvent, purgeEvent } from "../../../domain/auditEvents.js"
import { type FactRow, inScope, type NewEvent, type ScopeFilter } from "../../../domain/records.js"
import type { SessionWrite } from "../../sessionWrite.js"
import { purgeCascade, toEmbed } from "../../forgetting.js"
import { NOTHING_SETTLED, profilePlan, sourcesCurrent } from "../../profileSettlement.js"
import type { CorrectionOutcome, ProfileSettlement, SessionOutcome, TurnToEmbed } from "../../UserStore.js"
import { forgetFacts, forgottenWith } from "./forget.js"
import { byParts, FACT_COLUMNS, inList } from "./rows.js"
import { UserReads } from "./reads.js"
import { clock, lockedTransaction } from "./writes.js"

// The units of work on one user's data: each one transaction, holding the user's write lock,
// with its audit events.

export const ingestSession = (
  sql: SqlClient.SqlClient,
  userId: string,
  write: SessionWrite,
  options: { readonly events: ReadonlyArray<NewEvent>; readonly job: { readonly id: string; readonly result: string } | null }
) =>
  lockedTransaction(sql, userId, (writes) =>
    Effect.gen(function*() {
      const { job } = options
      if (job !== null) {
        const applied = yield* UserReads(sql, userId).appliedJob(job.id)
        if (applied !== undefined) return { _tag: "AlreadyApplied", result: applied } satisfies SessionOutcome
      }
      const { epochSeconds, now } = yield* clock
      const written = yield* writes.writeSession(write, now, epochSeconds)
      yield* writes.insertEvents(options.events, write.audit, now)
      if (job !== null) {
        yield* sql`INSERT INTO applied_jobs (user_id, job_id, result, applied_at) VALUES (${userId}, ${job.id}, ${job.result}, ${now})`
      }
      return { _tag: "Written", written } satisfies SessionOutcome
    }))

export const correctMemory = (
  sql: SqlClient.SqlClient,
  userId: string,
  correction: { readonly memoryId: string; readonly scope: ScopeFilter; readonly session: Omit<SessionWrite, "scope">; readonly winner: number }
) =>
  lockedTransaction(sql, userId, (writes) =>
    Effect.gen(function*() {
      const reads = UserReads(sql, userId)
      const current = yield* reads.fact(correction.memoryId)
      if (current === undefined || current.status !== "active" || !inScope(current, correction.scope)) {
        return { _tag: "Refused", current } satisfies CorrectionOutcome
      }
      const { epochSeconds, now } = yield* clock
      const scope = { agent_id: current.agent_id, run_id: current.run_id, project_id: current.project_id }
      const written = yield* writes.writeSession({ ...correction.session, scope }, now, epochSeconds)
      const created = yield* reads.fact(written.facts[correction.winner]!.factId)
      if (created === undefined) return yield* Effect.dieMessage("the new version was not written")
      return { _tag: "Corrected", fact: created } satisfies CorrectionOutcome
    }))

export const archiveMemory = (sql: SqlClient.SqlClient, userId: string, memoryId: string, audit: AuditContext) =>
  lockedTransaction(sql, userId, (writes) =>
    Effect.gen(function*() {
      const fact = yield* UserReads(sql, userId).fact(memoryId)
      if (fact === undefined) return Option.none()
      if (fact.status === "archived") return Option.some({ already: true, reembed: [], words: [] })
      const { now } = yield* clock
      const { rewrites, words } = yield* forgetFacts(sql, userId, writes, "archive", yield* forgottenWith(sql, userId, memoryId), now)
      yield* writes.insertEvents([archiveEvent(fact, audit)], audit, now)
      return Option.some({ already: false, reembed: toEmbed(rewrites), words })
    }))

export const purgeMemory = (sql: SqlClient.SqlClient, userId: string, memoryId: string, audit: AuditContext) =>
  lockedTransaction(sql, userId, (writes) =>
    Effect.gen(function*() {
      const fact = yield* UserReads(sql, userId).fact(memoryId)
      if (fact === undefined) return Option.none()
      const { now } = yield* clock
      const facts = yield* forgottenWith(sql, userId, memoryId)
      const { cascaded, rewrites, words } = yield* forgetFacts(sql, userId, writes, "purge", facts, now)
      const all = purgeCascade(cascaded, facts.length, rewrites.length)
      yield* writes.insertEvents([purgeEvent(fact, all, audit)], audit, now)
      return Option.some({ cascaded: all, words, reembed: toEmbed(rewrites) })
    }))

export const archiveAllMemories = (sql: SqlClient.SqlClient, userId: string, audit: AuditContext) =>
  lockedTransaction(sql, userId, (writes) =>
    Effect.gen(function*() {
      const { now } = yield* clock
      const facts = yield* sql<FactRow>`SELECT ${sql.literal(FACT_COLUMNS)} FROM facts f WHERE f.user_id = ${userId} AND f.status <> 'archived'`
      const current = facts.filter((fact) => fact.status === "active").length
      const { rewrites, words } = yield* forgetFacts(sql, userId, writes, "archive", facts, now)
      yield* writes.insertEvents([archiveAllEvent(current, audit)], audit, now)
      return { archived: current, reembed: toEmbed(rewrites), words }
    }))

/** Vectors of turns forgetting rewrote, stored where the turn still reads as embedded. */
export const embedTurns = (
  sql: SqlClient.SqlClient,
  userId: string,
  model: string,
  turns: ReadonlyArray<TurnToEmbed & { readonly vector: Float32Array }>
) =>
  lockedTransaction(sql, userId, (writes) =>
    Effect.gen(function*() {
      const current = yield* byParts(turns.map((turn) => turn.seq), (part) =>
        sql<TurnToEmbed & { readonly embedded: boolean }>`
          SELECT seq, content, embedding IS NOT NULL AS embedded FROM turns WHERE user_id = ${userId} AND ${inList(sql, "seq", part)}`)
      const unembedded = new Map(current.flatMap((turn) => turn.embedded ? [] : [[turn.seq, turn.content]]))
      yield* writes.storeVectors("turns", model, turns.filter((turn) => unembedded.get(turn.seq) === turn.content))
    }))

/**
 * Settles a stale entity (storage/profileSettlement.ts decides what is written), holding the
 * user's write lock: an erase, archive or purge that came while the profiles were built has
 * either finished, and then a gone entity or source fact leaves nothing written (the user's row
 * is never made again), or waits for this.
 */
export const settleProfile = (sql: SqlClient.SqlClient, userId: string, settle: ProfileSettlement) =>
  lockedTransaction(sql, userId, (writes) =>
    Effect.gen(function*() {
      const { audit, entity, profiles, sources } = settle
      const entities = yield* sql<{ readonly entity_id: string }>`
        SELECT entity_id FROM entities WHERE user_id = ${userId} AND entity_id = ${entity.entity_id}`
      if (entities.length === 0) return NOTHING_SETTLED
      const active = yield* byParts(sources, (part) => sql<{ readonly fact_id: string }>`
        SELECT fact_id FROM facts WHERE user_id = ${userId} AND ${inList(sql, "fact_id", part)} AND status = 'active'`)
      if (!sourcesCurrent(sources, active)) return NOTHING_SETTLED
      const { epochSeconds, now } = yield* clock
      const plan = profilePlan(yield* UserReads(sql, userId).currentProfiles(entity.entity_id), profiles)
      for (const { fact } of plan.written) yield* writes.insertFact(fact, now, epochSeconds)
      yield* writes.insertEvents(plan.written.map(({ citations, fact }) => profileAddedEvent(entity, fact, citations)), audit, now)
      for (const { fact, old } of plan.supersedes) yield* writes.closeFact(old, { newFactId: fact.factId, validUntil: fact.validFrom, now, epochSeconds })
      yield* byParts(plan.retired.map((old) => old.fact_id), (part) =>
        sql`UPDATE facts SET status = 'archived', updated_at = ${now} WHERE user_id = ${userId} AND ${inList(sql, "fact_id", part)}`)
      yield* writes.insertEvents([
        ...plan.supersedes.map(({ fact, old }) => profileSupersededEvent(entity, old, fact.factId)),
        ...plan.retired.map((old) => profileRetiredEvent(entity, old))
      ], audit, now)
      yield* sql`UPDATE entities SET profile_stale = FALSE, profile = coalesce(${plan.written.at(-1)?.fact.factId ?? null}, profile), updated_at = ${now}
                 WHERE user_id = ${userId} AND entity_id = ${entity.entity_id}`
      return { settled: true, written: plan.written.length, superseded: plan.supersedes.length }
    }))
