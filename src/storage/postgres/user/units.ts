import type { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import type { AuditContext } from "../../../domain/audit.js"
import { archiveAllEvent, archiveEvent, profileAddedEvent, profileSupersededEvent, purgeEvent } from "../../../domain/auditEvents.js"
import { inScope, type NewEvent, type ScopeFilter } from "../../../domain/records.js"
import type { SessionWrite } from "../../sessionWrite.js"
import type { CorrectionOutcome, ProfileSettlement, PurgeCascade, SessionOutcome } from "../../UserStore.js"
import { UserPostings } from "./postings.js"
import { UserReads } from "./reads.js"
import { clock, UserWrites } from "./writes.js"

// The units of work on one user's data: each one transaction, holding the user's write lock,
// with its audit events.

const unit = <A, E, R>(sql: SqlClient.SqlClient, userId: string, work: (writes: ReturnType<typeof UserWrites>) => Effect.Effect<A, E, R>) =>
  sql.withTransaction(Effect.gen(function*() {
    const writes = UserWrites(sql, userId)
    yield* writes.lock
    return yield* work(writes)
  }))

export const ingestSession = (
  sql: SqlClient.SqlClient,
  userId: string,
  write: SessionWrite,
  options: { readonly events: ReadonlyArray<NewEvent>; readonly job: { readonly id: string; readonly result: string } | null }
) =>
  unit(sql, userId, (writes) =>
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
  unit(sql, userId, (writes) =>
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
  unit(sql, userId, (writes) =>
    Effect.gen(function*() {
      const fact = yield* UserReads(sql, userId).fact(memoryId)
      if (fact === undefined) return Option.none<{ readonly already: boolean }>()
      if (fact.status === "archived") return Option.some({ already: true })
      const { now } = yield* clock
      yield* sql`UPDATE facts SET status = 'archived', updated_at = ${now} WHERE user_id = ${userId} AND fact_id = ${memoryId}`
      yield* writes.insertEvents([archiveEvent(fact, audit)], audit, now)
      return Option.some({ already: false })
    }))

/** Erases a fact for good: its vector goes with its row, its roles, edges from and to it, and its source links with it. */
export const purgeMemory = (sql: SqlClient.SqlClient, userId: string, memoryId: string, audit: AuditContext) =>
  unit(sql, userId, (writes) =>
    Effect.gen(function*() {
      const fact = yield* UserReads(sql, userId).fact(memoryId)
      if (fact === undefined) return Option.none<PurgeCascade>()
      const removed = (rows: ReadonlyArray<{ readonly n: number }>) => rows[0]?.n ?? 0
      const count = `count(*) AS n`
      const [vectors, roles, edges, sources] = yield* Effect.all([
        sql<{ readonly n: number }>`SELECT ${sql.literal(count)} FROM facts WHERE user_id = ${userId} AND fact_id = ${memoryId} AND embedding IS NOT NULL`,
        sql<{ readonly n: number }>`SELECT ${sql.literal(count)} FROM fact_entity_roles WHERE user_id = ${userId} AND fact_id = ${memoryId}`,
        sql<{ readonly n: number }>`SELECT ${sql.literal(count)} FROM edges WHERE user_id = ${userId} AND (src_fact_id = ${memoryId} OR dst_id = ${memoryId})`,
        sql<{ readonly n: number }>`SELECT ${sql.literal(count)} FROM fact_sources WHERE user_id = ${userId} AND fact_id = ${memoryId}`
      ])
      yield* sql`DELETE FROM edges WHERE user_id = ${userId} AND (src_fact_id = ${memoryId} OR dst_id = ${memoryId})`
      yield* sql`DELETE FROM fact_entity_roles WHERE user_id = ${userId} AND fact_id = ${memoryId}`
      yield* sql`DELETE FROM fact_sources WHERE user_id = ${userId} AND fact_id = ${memoryId}`
      yield* sql`UPDATE facts SET superseded_by = NULL WHERE user_id = ${userId} AND superseded_by = ${memoryId}`
      const [deleted] = yield* UserPostings(sql, userId).delete("facts", sql`fact_id = ${memoryId}`)
      yield* writes.countIndexed("facts", -1, -(deleted?.lexemes ?? 0))
      yield* sql`UPDATE users SET facts_vectors_removed = facts_vectors_removed + ${removed(vectors)} WHERE user_id = ${userId}`
      const cascaded = { vectors: removed(vectors), fact_entity_roles: removed(roles), fact_edges: removed(edges), fact_sources: removed(sources) }
      const { now } = yield* clock
      yield* writes.insertEvents([purgeEvent(fact, cascaded, audit)], audit, now)
      return Option.some(cascaded)
    }))

export const archiveAllMemories = (sql: SqlClient.SqlClient, userId: string, audit: AuditContext) =>
  unit(sql, userId, (writes) =>
    Effect.gen(function*() {
      const { now } = yield* clock
      const archived = yield* sql<{ readonly fact_id: string }>`
        UPDATE facts SET status = 'archived', updated_at = ${now} WHERE user_id = ${userId} AND status = 'active' RETURNING fact_id`
      yield* writes.insertEvents([archiveAllEvent(archived.length, audit)], audit, now)
      return archived.length
    }))

export const settleProfile = (sql: SqlClient.SqlClient, userId: string, settle: ProfileSettlement) =>
  unit(sql, userId, (writes) =>
    Effect.gen(function*() {
      const { audit, entity, profile } = settle
      const { epochSeconds, now } = yield* clock
      const mark = (profileId: string | null) =>
        sql`UPDATE entities SET profile_stale = FALSE, profile = coalesce(${profileId}, profile), updated_at = ${now}
            WHERE user_id = ${userId} AND entity_id = ${entity.entity_id}`
      if (profile === undefined) {
        yield* mark(null)
        return { written: false, superseded: false }
      }
      const { citations, fact } = profile
      yield* writes.ensureUser(now)
      yield* writes.insertFact(fact, now, epochSeconds)
      yield* writes.insertEvents([profileAddedEvent(entity, fact.factId, citations)], audit, now)
      const old = entity.profile === null ? undefined : yield* UserReads(sql, userId).fact(entity.profile)
      const superseded = old !== undefined && old.status === "active"
      if (superseded) {
        yield* writes.closeFact(old, { newFactId: fact.factId, validUntil: fact.validFrom, now, epochSeconds })
        yield* writes.insertEvents([profileSupersededEvent(entity, old.fact_id, fact.factId)], audit, now)
      }
      yield* mark(fact.factId)
      return { written: true, superseded }
    }))
