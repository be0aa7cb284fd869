import type { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { insertEvents, type NewEvent } from "./events.js"
import { addSources, closeFact, insertFacts, type NewFact, newFactId, type Replacement } from "./factWrites.js"
import { FactQueries, type FactRow } from "./facts.js"
import { appendTurns, spanId, type TurnScope } from "./turns.js"
import type { AuditContext } from "../../../domain/audit.js"
import type { ActiveEmbedder } from "../../../llm/Embedder.js"
import { storeVectors } from "../../../services/ingest/embedWrites.js"
import type { CleanFact, Decision } from "../../../services/ingest/Extractor.js"

/** A fact to write and what to do with it (the decision's reason goes into the audit event); its vector when there is an embedder. */
export interface FactPlan {
  readonly fact: CleanFact
  readonly decision: Decision
  readonly vector: Float32Array | undefined
  /** Metadata of this fact beyond what extraction gives (it wins on a clash). */
  readonly metadata?: Record<string, unknown>
}

export interface SessionWrite {
  readonly sessionId: string
  readonly sessionTime: string
  readonly turns: ReadonlyArray<{ readonly role: string; readonly content: string }>
  readonly turnVectors: Option.Option<ReadonlyArray<Float32Array>>
  readonly scope: TurnScope
  readonly plans: ReadonlyArray<FactPlan>
  /** Who extracted the facts (provider and model), or how they were made. */
  readonly extractedBy: Record<string, unknown>
  readonly audit: AuditContext
  readonly now: string
  readonly epochSeconds: number
}

export interface SessionWritten {
  readonly turnsWritten: number
  /** The facts written, and the fact each replaced, in the order planned. */
  readonly facts: ReadonlyArray<{ readonly factId: string; readonly replaced: string | null; readonly merged: boolean }>
}

const support = (turns: SessionWrite["turns"], fact: CleanFact) =>
  fact.turns.map((turn) => turns[turn - 1]?.content ?? "").filter((text) => text !== "").join(" … ").slice(0, 1800)

/**
 * Writes a session inside the caller's transaction: its turns and spans, then each planned fact
 * (added, merged into the fact that already says it, or replacing an older version), each change
 * with its audit event. A planned replacement whose target changed meanwhile, or was replaced by
 * an earlier plan of the session, becomes an add. The plans are settled first, in order, so that
 * each table gets one statement for the session.
 */
export const writeSession = (sql: SqlClient.SqlClient, embedder: Option.Option<ActiveEmbedder>, write: SessionWrite) =>
  Effect.gen(function*() {
    const { audit, now, sessionId } = write
    const { firstPosition, seqs, written } = yield* appendTurns(sql, { ...write, now })
    yield* storeVectors(sql, embedder, "turn", seqs, write.turnVectors)
    const scopeStamp = Object.fromEntries(Object.entries(write.scope).filter(([, value]) => value !== null))
    const facts: Array<SessionWritten["facts"][number]> = []
    const added: Array<{ readonly fact: NewFact; readonly vector: Float32Array | undefined }> = []
    const merges: Array<{ readonly factId: string; readonly spanIds: ReadonlyArray<string> }> = []
    const closes: Array<{ readonly old: FactRow; readonly replacement: Replacement }> = []
    const events: Array<NewEvent> = []
    const replaced = new Set<string>()
    for (const { decision, fact, metadata, vector } of write.plans) {
      const spanIds = fact.turns.map((turn) => spanId(sessionId, firstPosition + turn - 1))
      const target = decision.action === "add" ? undefined : yield* FactQueries(sql).find(decision.target.fact_id)
      const current = target !== undefined && target.status === "active" && !replaced.has(target.fact_id) ? target : undefined
      if (decision.action === "duplicate" && current !== undefined) {
        merges.push({ factId: current.fact_id, spanIds })
        events.push({
          type: "memory_supersede",
          memoryId: current.fact_id,
          sessionId,
          reason: decision.reason,
          details: { action: "duplicate_merge", status: current.status, statement: fact.statement }
        })
        facts.push({ factId: current.fact_id, replaced: null, merged: true })
        continue
      }
      const factId = newFactId()
      added.push({
        fact: {
          factId,
          content: fact.statement,
          kind: fact.kind,
          sessionId,
          occurredAt: fact.occurred,
          validFrom: fact.occurred ?? write.sessionTime,
          confidence: fact.confidence,
          metadata: {
            support_text: support(write.turns, fact) || fact.statement,
            extracted_support_text: fact.statement,
            predicate_canonical: fact.predicate,
            time_precision: fact.timePrecision,
            time_source: fact.occurred === null ? "session_time" : "extracted",
            extracted_by: write.extractedBy,
            ...(Object.keys(scopeStamp).length > 0 ? { scope: scopeStamp } : {}),
            ...metadata
          },
          scope: write.scope,
          spanIds,
          entities: fact.entities,
          predicate: fact.predicate
        },
        vector
      })
      events.push({
        type: "memory_add",
        memoryId: factId,
        sessionId,
        reason: `extracted from session ${sessionId}`,
        details: { action: "extract", status: "active", kind: fact.kind }
      })
      if (decision.action === "add" || current === undefined) {
        facts.push({ factId, replaced: null, merged: false })
        continue
      }
      const validUntil = fact.occurred ?? write.sessionTime
      replaced.add(current.fact_id)
      closes.push({ old: current, replacement: { newFactId: factId, validUntil, now, epochSeconds: write.epochSeconds } })
      events.push({
        type: "memory_supersede",
        memoryId: current.fact_id,
        sessionId,
        reason: decision.reason,
        details: { action: decision.action, status: "superseded", new_memory_id: factId, superseded_id: current.fact_id, valid_until: validUntil }
      })
      facts.push({ factId, replaced: current.fact_id, merged: false })
    }
    const factSeqs = yield* insertFacts(sql, added.map(({ fact }) => fact), now, write.epochSeconds)
    for (const { factId, spanIds } of merges) yield* addSources(sql, factId, spanIds, now)
    for (const { old, replacement } of closes) yield* closeFact(sql, old, replacement)
    yield* insertEvents(sql, events, audit, now)
    const vectorRows = added.flatMap(({ vector }, i) => vector === undefined ? [] : [{ seq: factSeqs[i]!, vector }])
    if (vectorRows.length > 0) {
      yield* storeVectors(sql, embedder, "fact", vectorRows.map((row) => row.seq), Option.some(vectorRows.map((row) => row.vector)))
    }
    return { turnsWritten: written, facts } satisfies SessionWritten
  })
