import type { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import type { AuditContext } from "../../../domain/audit.js"
import { archiveAllEvent, archiveEvent, purgeEvent } from "../../../domain/auditEvents.js"
import { utcTimestamp } from "../../../util/timestamps.js"
import { inScope, type NewEvent, type ScopeFilter } from "../../../domain/records.js"
import type { SessionWrite } from "../../sessionWrite.js"
import type { CorrectionOutcome, SessionOutcome } from "../../UserStore.js"
import { appliedJobResult, markJobApplied } from "./appliedJobs.js"
import { insertEvent, insertEvents } from "./events.js"
import { FactQueries } from "./facts.js"
import { purgeFact } from "./purge.js"
import { writeSession } from "./sessionWrites.js"

// The units of work that change a user's memories, each one transaction with its audit events.

const clock = Effect.map(Clock.currentTimeMillis, (millis) => ({ now: utcTimestamp(millis), epochSeconds: millis / 1000 }))

/** A session with the events that follow it, and for a job its applied mark: a job already applied is answered with its result. */
export const ingestSession = (
  sql: SqlClient.SqlClient,
  write: SessionWrite,
  options: { readonly events: ReadonlyArray<NewEvent>; readonly job: { readonly id: string; readonly result: string } | null }
) =>
  sql.withTransaction(Effect.gen(function*() {
    const { job } = options
    if (job !== null) {
      const applied = yield* appliedJobResult(sql, job.id)
      if (applied !== undefined) return { _tag: "AlreadyApplied", result: applied } satisfies SessionOutcome
    }
    const { epochSeconds, now } = yield* clock
    const written = yield* writeSession(sql, write, now, epochSeconds)
    yield* insertEvents(sql, options.events, write.audit, now)
    if (job !== null) yield* markJobApplied(sql, job.id, job.result, now)
    return { _tag: "Written", written } satisfies SessionOutcome
  }))

/** A corrected version superseding a memory that is still current and within scope when the write runs. */
export const correctMemory = (
  sql: SqlClient.SqlClient,
  correction: { readonly memoryId: string; readonly scope: ScopeFilter; readonly session: Omit<SessionWrite, "scope">; readonly winner: number }
) =>
  sql.withTransaction(Effect.gen(function*() {
    const facts = FactQueries(sql)
    const current = yield* facts.find(correction.memoryId)
    if (current === undefined || current.status !== "active" || !inScope(current, correction.scope)) {
      return { _tag: "Refused", current } satisfies CorrectionOutcome
    }
    const { epochSeconds, now } = yield* clock
    const scope = { agent_id: current.agent_id, run_id: current.run_id, project_id: current.project_id }
    const written = yield* writeSession(sql, { ...correction.session, scope }, now, epochSeconds)
    const created = yield* facts.find(written.facts[correction.winner]!.factId)
    if (created === undefined) return yield* Effect.dieMessage("the new version was not written")
    return { _tag: "Corrected", fact: created } satisfies CorrectionOutcome
  }))

export const archiveMemory = (sql: SqlClient.SqlClient, memoryId: string, audit: AuditContext) =>
  sql.withTransaction(Effect.gen(function*() {
    const fact = yield* FactQueries(sql).find(memoryId)
    if (fact === undefined) return Option.none<{ readonly already: boolean }>()
    if (fact.status === "archived") return Option.some({ already: true })
    const { now } = yield* clock
    yield* sql`UPDATE facts SET status = 'archived', updated_at = ${now} WHERE fact_id = ${memoryId}`
    yield* insertEvent(sql, archiveEvent(fact, audit), audit, now)
    return Option.some({ already: false })
  }))

export const purgeMemory = (sql: SqlClient.SqlClient, memoryId: string, audit: AuditContext) =>
  sql.withTransaction(Effect.gen(function*() {
    const fact = yield* FactQueries(sql).find(memoryId)
    if (fact === undefined) return Option.none()
    const cascaded = yield* purgeFact(sql, fact)
    const { now } = yield* clock
    yield* insertEvent(sql, purgeEvent(fact, cascaded, audit), audit, now)
    return Option.some(cascaded)
  }))

export const archiveAllMemories = (sql: SqlClient.SqlClient, audit: AuditContext) =>
  sql.withTransaction(Effect.gen(function*() {
    const { now } = yield* clock
    const [row] = yield* sql<{ readonly n: number }>`SELECT count(*) AS n FROM facts WHERE status = 'active'`
    yield* sql`UPDATE facts SET status = 'archived', updated_at = ${now} WHERE status = 'active'`
    yield* insertEvent(sql, archiveAllEvent(row?.n ?? 0, audit), audit, now)
    return row?.n ?? 0
  }))
