import type { CleanFact, Decision } from "../domain/facts.js"
import { newFactId, spanId } from "../domain/ids.js"
import { type FactRow, type NewEvent, type NewFact, type Replacement, scopeOrElse, type TurnScope } from "../domain/records.js"
import type { AuditContext } from "../domain/audit.js"

/** A fact to write and what to do with it (the decision's reason goes into the audit event); its vector when there is an embedder. */
export interface FactPlan {
  readonly fact: CleanFact
  readonly decision: Decision
  readonly vector: Float32Array | undefined
  /** Metadata of this fact beyond what extraction gives (it wins on a clash). */
  readonly metadata?: Record<string, unknown>
}

/** A session to write as one unit: its turns (with their vectors) and its planned facts. */
export interface SessionWrite {
  readonly sessionId: string
  readonly sessionTime: string
  readonly turns: ReadonlyArray<{ readonly role: string; readonly content: string }>
  readonly turnVectors: ReadonlyArray<Float32Array> | undefined
  /** The model of every vector in the write; none without an embedder. */
  readonly embeddingModel: string | undefined
  readonly scope: TurnScope
  readonly plans: ReadonlyArray<FactPlan>
  /** Who extracted the facts (provider and model), or how they were made. */
  readonly extractedBy: Record<string, unknown>
  readonly audit: AuditContext
}

export interface SessionWritten {
  readonly turnsWritten: number
  /** The facts written, and the fact each replaced, in the order planned. */
  readonly facts: ReadonlyArray<{ readonly factId: string; readonly replaced: string | null; readonly merged: boolean }>
}

/** The changes a session's plans come to, as a backend writes them, each with its audit event. */
export interface SettledSession {
  readonly added: ReadonlyArray<{ readonly fact: NewFact; readonly vector: Float32Array | undefined }>
  readonly merges: ReadonlyArray<{ readonly factId: string; readonly spanIds: ReadonlyArray<string> }>
  readonly closes: ReadonlyArray<{ readonly old: FactRow; readonly replacement: Replacement }>
  readonly events: ReadonlyArray<NewEvent>
  readonly facts: SessionWritten["facts"]
}

const support = (turns: SessionWrite["turns"], fact: CleanFact) =>
  fact.turns.map((turn) => turns[turn - 1]?.content ?? "").filter((text) => text !== "").join(" … ").slice(0, 1800)

/** The facts a session's plans name as targets, to read as they are now inside the write. */
export const planTargets = (write: SessionWrite) =>
  [...new Set(write.plans.flatMap(({ decision }) => decision.action === "add" ? [] : [decision.target.fact_id]))]

/**
 * What a session's plans come to, given where its turns start and the targets as the write sees
 * them: each planned fact added, merged into the fact that already says it, or replacing an older
 * version. A planned replacement whose target changed meanwhile, or was replaced by an earlier
 * plan of the session, becomes an add. The event of a change to an existing memory carries the
 * session's scope and the memory's stamps where the session sets none: it shows where both do.
 */
export const settleSession = (
  write: SessionWrite,
  context: {
    readonly firstPosition: number
    readonly targets: ReadonlyMap<string, FactRow>
    readonly now: string
    readonly epochSeconds: number
  }
): SettledSession => {
  const { sessionId } = write
  const scopeStamp = Object.fromEntries(Object.entries(write.scope).filter(([, value]) => value !== null))
  const facts: Array<SessionWritten["facts"][number]> = []
  const added: Array<SettledSession["added"][number]> = []
  const merges: Array<SettledSession["merges"][number]> = []
  const closes: Array<SettledSession["closes"][number]> = []
  const events: Array<NewEvent> = []
  const replaced = new Set<string>()
  for (const { decision, fact, metadata, vector } of write.plans) {
    const spanIds = fact.turns.map((turn) => spanId(sessionId, context.firstPosition + turn - 1))
    const target = decision.action === "add" ? undefined : context.targets.get(decision.target.fact_id)
    const current = target !== undefined && target.status === "active" && !replaced.has(target.fact_id) ? target : undefined
    if (decision.action === "duplicate" && current !== undefined) {
      merges.push({ factId: current.fact_id, spanIds })
      events.push({
        type: "memory_supersede",
        memoryId: current.fact_id,
        sessionId,
        reason: decision.reason,
        details: { action: "duplicate_merge", status: current.status, statement: fact.statement },
        scope: scopeOrElse(write.scope, current)
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
      details: { action: "extract", status: "active", kind: fact.kind },
      scope: write.scope
    })
    if (decision.action === "add" || current === undefined) {
      facts.push({ factId, replaced: null, merged: false })
      continue
    }
    const validUntil = fact.occurred ?? write.sessionTime
    replaced.add(current.fact_id)
    closes.push({ old: current, replacement: { newFactId: factId, validUntil, now: context.now, epochSeconds: context.epochSeconds } })
    events.push({
      type: "memory_supersede",
      memoryId: current.fact_id,
      sessionId,
      reason: decision.reason,
      details: { action: decision.action, status: "superseded", new_memory_id: factId, superseded_id: current.fact_id, valid_until: validUntil },
      scope: scopeOrElse(write.scope, current)
    })
    facts.push({ factId, replaced: current.fact_id, merged: false })
  }
  return { added, merges, closes, events, facts }
}
