import { Effect, Option } from "effect"
import type { ProviderError } from "../../api/errors.js"
import type { CleanFact, Decision } from "../../domain/facts.js"
import { RECONCILE_PROMPT } from "../../llm/prompts.js"
import { type ReconcileInput, Reconciliation } from "../../llm/tasks.js"
import type { ActiveLlm } from "../../llm/types.js"
import type { CallUsage } from "../../llm/usage.js"
import { normalizeText } from "../../domain/text.js"
import { analyseQuery } from "../../retrieval/query.js"
import type { FactRow, ScopeFilter } from "../../domain/records.js"
import type { StoreError, UserStoreOperations } from "../../storage/UserStore.js"
import { span } from "../../util/span.js"

/** Similar current facts a new fact is compared with, at most. */
const CANDIDATES_PER_FACT = 5

/** The current facts most like each new one by their words, best first. */
export const lexicalCandidates = (store: UserStoreOperations, userId: string, facts: ReadonlyArray<CleanFact>, scope: ScopeFilter) =>
  store.similarFacts(userId, { terms: facts.map((fact) => analyseQuery(fact.statement).terms), scope, limit: CANDIDATES_PER_FACT })

/**
 * What to do with each new fact, against similar current facts (its lexical candidates, found by
 * the caller, and its nearest by vector): a candidate that says the same (text aside from case and
 * punctuation) is a duplicate with no call; the rest are decided by one structured call for the
 * session. A decision naming no candidate of its fact is an add.
 */
export const reconcileFacts = (
  llm: ActiveLlm,
  store: UserStoreOperations,
  input: {
    readonly userId: string
    readonly sessionId: string
    readonly facts: ReadonlyArray<CleanFact>
    readonly lexical: ReadonlyArray<ReadonlyArray<FactRow>>
    readonly vectors: Option.Option<ReadonlyArray<Float32Array>>
    readonly scope: ScopeFilter
  }
): Effect.Effect<
  { readonly decisions: ReadonlyArray<Decision>; readonly calls: ReadonlyArray<CallUsage> },
  ProviderError | StoreError
> =>
  Effect.gen(function*() {
    const nearest = Option.isSome(input.vectors)
      ? yield* store.nearestFacts(input.userId, { vectors: input.vectors.value, scope: input.scope, limit: CANDIDATES_PER_FACT })
      : []
    const candidates = input.facts.map((_, i) => {
      const merged = new Map([...input.lexical[i] ?? [], ...nearest[i] ?? []].map((row) => [row.fact_id, row]))
      return [...merged.values()].slice(0, CANDIDATES_PER_FACT)
    })
    const decisions: Array<Decision> = input.facts.map((fact, i) => {
      const same = candidates[i]!.find((row) => normalizeText(row.content) === normalizeText(fact.statement))
      return same === undefined
        ? { action: "add" }
        : { action: "duplicate", target: same, reason: `repeated in session ${input.sessionId}: the same statement is already in memory` }
    })
    const open = input.facts.flatMap((fact, index) =>
      decisions[index]!.action === "add" && candidates[index]!.length > 0 ? [{ fact, index }] : [])
    if (open.length === 0) return { decisions, calls: [] }
    const request: ReconcileInput = {
      session_id: input.sessionId,
      facts: open.map(({ fact, index }) => ({
        index,
        statement: fact.statement,
        candidates: candidates[index]!.map((row) => ({ id: row.fact_id, statement: row.content, kind: row.kind, valid_from: row.valid_from ?? "" }))
      }))
    }
    const reply = yield* llm.generate({
      operation: "ingest",
      phase: "reconcile",
      system: RECONCILE_PROMPT,
      input: request,
      schemaName: "memory_reconciliation",
      schema: Reconciliation,
      maxTokens: 2048,
      temperature: 0
    })
    const claimed = new Set<string>()
    for (const decision of reply.value.decisions) {
      if (decision.action === "add" || decisions[decision.index]?.action !== "add") continue
      const target = candidates[decision.index]?.find((row) => row.fact_id === decision.target_id)
      // Two new facts cannot both replace one old fact: the first decision holds.
      if (target === undefined || claimed.has(target.fact_id)) continue
      claimed.add(target.fact_id)
      const verb = decision.action === "duplicate" ? "repeated in" : decision.action === "contradict" ? "contradicted by" : "updated by"
      decisions[decision.index] = { action: decision.action, target, reason: `${verb} session ${input.sessionId}: ${decision.reason.trim()}` }
    }
    return { decisions, calls: reply.calls }
  }).pipe(span("Extractor.reconcile", { attributes: { facts: input.facts.length } }))
