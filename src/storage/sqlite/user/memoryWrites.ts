import type { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import type { AuditContext } from "../../../domain/audit.js"
import { archiveAllEvent, archiveEvent, purgeEvent } from "../../../domain/auditEvents.js"
import { utcTimestamp } from "../../../util/timestamps.js"
import { type FactRow, inScope, type NewEvent, type ScopeFilter } from "../../../domain/records.js"
import type { SessionWrite } from "../../sessionWrite.js"
import { purgeCascade, toEmbed } from "../../forgetting.js"
import type { CorrectionOutcome, SessionOutcome, TurnToEmbed } from "../../UserStore.js"
import { inBatches } from "./batches.js"
import { appliedJobResult, markJobApplied } from "./appliedJobs.js"
import { insertEvent, insertEvents } from "./events.js"
import { FactQueries } from "./facts.js"
import { forgetFacts, forgottenWith } from "./forget.js"
import { FACT_COLUMNS } from "./retrieval.js"
import { VectorQueries } from "./vectors.js"
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
    if (fact === undefined) return Option.none()
    if (fact.status === "archived") return Option.some({ already: true, reembed: [], words: [] })
    const { now } = yield* clock
    const { rewrites, words } = yield* forgetFacts(sql, "archive", yield* forgottenWith(sql, memoryId), now)
    yield* insertEvent(sql, archiveEvent(fact, audit), audit, now)
    return Option.some({ already: false, reembed: toEmbed(rewrites), words })
  }))

export const purgeMemory = (sql: SqlClient.SqlClient, memoryId: string, audit: AuditContext) =>
  sql.withTransaction(Effect.gen(function*() {
    const fact = yield* FactQueries(sql).find(memoryId)
    if (fact === undefined) return Option.none()
    const { now } = yield* clock
    const facts = yield* forgottenWith(sql, memoryId)
    const { cascaded, rewrites, words } = yield* forgetFacts(sql, "purge", facts, now)
    const all = purgeCascade(cascaded, facts.length, rewrites.length)
    yield* insertEvent(sql, purgeEvent(fact, all, audit), audit, now)
    return Option.some({ cascaded: all, words, reembed: toEmbed(rewrites) })
  }))

export const archiveAllMemories = (sql: SqlClient.SqlClient, audit: AuditContext) =>
  sql.withTransaction(Effect.gen(function*() {
    const { now } = yield* clock
    const facts = yield* sql<FactRow>`SELECT ${sql.literal(FACT_COLUMNS)} FROM facts f WHERE f.status <> 'archived'`
    const current = facts.filter((fact) => fact.status === "active").length
    const { rewrites, words } = yield* forgetFacts(sql, "archive", facts, now)
    yield* insertEvent(sql, archiveAllEvent(current, audit), audit, now)
    return { archived: current, reembed: toEmbed(rewrites), words }
  }))

/** Vectors of turns forgetting rewrote, stored where the turn still reads as embedded. */
export const embedTurns = (
  sql: SqlClient.SqlClient,
  model: string,
  turns: ReadonlyArray<TurnToEmbed & { readonly vector: Float32Array }>
) =>
  sql.withTransaction(Effect.gen(function*() {
    if (turns.length === 0) return
    const current = yield* inBatches(turns.map((turn) => turn.seq), (batch) =>
      sql<TurnToEmbed>`SELECT seq, content FROM turns WHERE seq IN ${sql.in(batch)}`)
    const reads = new Map(current.map((turn) => [turn.seq, turn.content]))
    const vectors = VectorQueries(sql)
    const rows = turns.filter((turn) => reads.get(turn.seq) === turn.content)
    for (const row of rows) yield* vectors.remove("turn", row.seq)
    const stored = yield* vectors.insert("turn", { model, dimensions: turns[0]!.vector.length }, rows)
    if (!stored) yield* Effect.logWarning("turn vectors not stored: the store holds another embedding model or dimension")
  }))
