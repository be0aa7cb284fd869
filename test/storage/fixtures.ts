import { Effect, Either, Option } from "effect"
import type { CleanFact } from "../../src/domain/facts.js"
import { type FactRow, type NewEvent, type ScopeFilter, UNSCOPED } from "../../src/domain/records.js"
import type { FactPlan, SessionWrite } from "../../src/storage/sessionWrite.js"
import { type RecallQuery, UserStore } from "../../src/storage/UserStore.js"

// Inputs for the storage contract, in the shapes the services hand the ports.

export const AUDIT = { actor: "contract", requestId: "req-contract" }
export const NO_SCOPE: ScopeFilter = { agent_id: null, run_id: null, project_id: null }
export const MODEL = "contract-embedder"

/** The audit event of a load of a user's rows. */
export const LOADED: NewEvent = { type: "memory_add", memoryId: null, sessionId: null, reason: "loaded", details: { action: "import" }, scope: UNSCOPED }
export const NOW = "2026-01-01T00:00:00"

/** A fact taken from the session's first turn. */
export const fact = (statement: string, options: Partial<CleanFact> = {}): CleanFact => ({
  statement,
  kind: "fact",
  confidence: 0.9,
  occurred: null,
  timePrecision: null,
  turns: [1],
  entities: [],
  predicate: "",
  ...options
})

export const add = (planned: CleanFact, vector?: Float32Array): FactPlan => ({ fact: planned, decision: { action: "add" }, vector })

export const replacing = (planned: CleanFact, target: FactRow, action: "update" | "contradict" | "duplicate" = "update"): FactPlan => ({
  fact: planned,
  decision: { action, target, reason: `${action} in the contract` },
  vector: undefined
})

/** A session of turns (each "user: text") and planned facts. */
export const session = (
  sessionId: string,
  turns: ReadonlyArray<string>,
  plans: ReadonlyArray<FactPlan> = [],
  options: { readonly scope?: ScopeFilter; readonly turnVectors?: ReadonlyArray<Float32Array> } = {}
): SessionWrite => ({
  sessionId,
  sessionTime: "2025-05-08T10:00:00",
  turns: turns.map((content) => ({ role: "user", content })),
  turnVectors: options.turnVectors,
  embeddingModel: options.turnVectors !== undefined || plans.some((plan) => plan.vector !== undefined) ? MODEL : undefined,
  scope: options.scope ?? NO_SCOPE,
  plans,
  extractedBy: { method: "contract" },
  audit: AUDIT
})

/** Writes a session with no further events and no job; the facts it wrote. */
export const writeSession = (userId: string, write: SessionWrite) =>
  Effect.flatMap(UserStore, (store) =>
    Effect.flatMap(store.writeSession(userId, write, { events: [], job: null }), (outcome) =>
      outcome._tag === "Written" ? Effect.succeed(outcome.written) : Effect.dieMessage("a session without a job is always written")))

/** A fact as the store holds it now. */
export const stored = (userId: string, factId: string) =>
  Effect.flatMap(UserStore, (store) =>
    Effect.flatMap(store.fact(userId, factId), Option.match({
      onNone: () => Effect.dieMessage(`fact ${factId} is not in the store`),
      onSome: Effect.succeed
    })))

/** A unit vector along one axis of an 8-dimensional space, tilted toward the next axis by `tilt`. */
export const axis = (index: number, tilt = 0) => {
  const vector = new Float32Array(8)
  vector[index % 8] = 1
  vector[(index + 1) % 8] = tilt
  return vector
}

export const recallQuery = (options: Partial<RecallQuery>): RecallQuery => ({
  terms: [],
  names: [],
  datePrefix: null,
  vector: Either.left("no query vector in this test"),
  scope: NO_SCOPE,
  statuses: ["active"],
  depth: 30,
  vectorDepth: 30,
  neighbourSeeds: 10,
  neighbourReach: 1,
  ...options
})
