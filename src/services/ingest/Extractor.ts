import { Effect, Option } from "effect"
import { stemmer } from "stemmer"
import type { InvalidScope, ProviderError, StoreUnavailable } from "../../api/errors.js"
import { EXTRACTION_PROMPT, RECONCILE_PROMPT } from "../../llm/prompts.js"
import { Extraction, type ExtractedFact, type ExtractionInput, type ReconcileInput, Reconciliation } from "../../llm/tasks.js"
import type { ActiveLlm } from "../../llm/types.js"
import type { CallUsage } from "../../llm/usage.js"
import { normalizeText } from "../../retrieval/fusion.js"
import { analyseQuery, selectiveExpression } from "../../retrieval/query.js"
import type { FactRow, ScopeFilter } from "../../storage/sqlite/user/facts.js"
import { RetrievalQueries } from "../../storage/sqlite/user/retrieval.js"
import { VectorQueries } from "../../storage/sqlite/user/vectors.js"
import { documentFrequencies } from "../recall/Retrieval.js"
import type { StoreCache } from "../../storage/sqlite/StoreCache.js"

/** A session as extraction reads it: turns numbered from 1 in the order they were sent. */
export interface SessionInput {
  readonly sessionId: string
  readonly sessionTime: string
  readonly turns: ReadonlyArray<{ readonly role: string; readonly content: string }>
}

/** An extracted fact, checked: a date of a known precision or none, turns that exist, bounded confidence. */
export interface CleanFact {
  readonly statement: string
  readonly kind: ExtractedFact["kind"]
  readonly confidence: number
  readonly occurred: string | null
  readonly timePrecision: "year" | "month" | "day" | "minute" | null
  /** 1-based numbers of the session's turns it comes from. */
  readonly turns: ReadonlyArray<number>
  readonly entities: ReadonlyArray<{ readonly name: string; readonly role: string }>
  readonly predicate: string
}

export type Decision =
  | { readonly action: "add" }
  | { readonly action: "update" | "contradict" | "duplicate"; readonly target: FactRow; readonly reason: string }

// A long session goes in parts small enough for any model's context and output.
const CHUNK_TURNS = 40
const CHUNK_CHARS = 12_000
const CANDIDATES_PER_FACT = 5

const PRECISION: ReadonlyArray<readonly [RegExp, CleanFact["timePrecision"]]> = [
  [/^\d{4}$/, "year"],
  [/^\d{4}-\d{2}$/, "month"],
  [/^\d{4}-\d{2}-\d{2}$/, "day"],
  [/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/, "minute"]
]

const clean = (fact: ExtractedFact, turnCount: number): CleanFact | undefined => {
  const statement = fact.statement.replace(/\s+/g, " ").trim()
  if (statement === "") return undefined
  const occurred = fact.occurred.trim()
  const precision = PRECISION.find(([pattern]) => pattern.test(occurred))?.[1] ?? null
  return {
    statement,
    kind: fact.kind,
    confidence: Number.isFinite(fact.confidence) ? Math.min(1, Math.max(0, fact.confidence)) : 0.5,
    occurred: precision === null ? null : occurred,
    timePrecision: precision,
    turns: [...new Set(fact.source_turns.filter((turn) => turn >= 1 && turn <= turnCount))],
    entities: fact.entities.map((entity) => ({ name: entity.name.trim(), role: entity.role })).filter((entity) => entity.name !== ""),
    predicate: fact.predicate.trim().toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_|_$/g, "")
  }
}

/** Consecutive parts of a session's turns, each within the turn and character bounds. */
const chunks = <T extends { readonly content: string }>(turns: ReadonlyArray<T>) => {
  const parts: Array<Array<{ readonly turn: number; readonly value: T }>> = [[]]
  let chars = 0
  turns.forEach((value, i) => {
    const current = parts[parts.length - 1]!
    if (current.length > 0 && (current.length === CHUNK_TURNS || chars + value.content.length > CHUNK_CHARS)) {
      parts.push([])
      chars = 0
    }
    parts[parts.length - 1]!.push({ turn: i + 1, value })
    chars += value.content.length
  })
  return parts.filter((part) => part.length > 0)
}

/**
 * Facts out of a session, with structured calls to the configured LLM (one per part of a long
 * session); every call's usage is returned so the caller can report it.
 */
export const extractFacts = (llm: ActiveLlm, session: SessionInput) =>
  Effect.map(
    Effect.forEach(chunks(session.turns), (part) =>
      llm.generate({
        operation: "ingest",
        phase: "extract",
        system: EXTRACTION_PROMPT,
        input: {
          session_id: session.sessionId,
          session_time: session.sessionTime,
          turns: part.map(({ turn, value }) => ({ turn, role: value.role, text: value.content }))
        } satisfies ExtractionInput,
        schemaName: "memory_extraction",
        schema: Extraction,
        maxTokens: 4096,
        temperature: 0
      }), { concurrency: 2 }),
    (replies) => ({
      facts: replies.flatMap((reply) => reply.value.facts.flatMap((fact) => clean(fact, session.turns.length) ?? [])),
      calls: replies.flatMap((reply) => reply.calls)
    })
  ).pipe(Effect.withSpan("Extractor.extract", { attributes: { turns: session.turns.length } }))

/** The current facts most like each new one by their words (bm25 over the selective ones), best first. */
export const lexicalCandidates = (stores: StoreCache, userId: string, facts: ReadonlyArray<CleanFact>, scope: ScopeFilter) =>
  stores.read(userId, ({ sql }) =>
    Effect.gen(function*() {
      const q = RetrievalQueries(sql)
      const stemsOf = facts.map((fact) => new Map(analyseQuery(fact.statement).terms.map((term) => [term, stemmer(term)])))
      // One lookup of how common each word is, for the whole session.
      const frequency = yield* documentFrequencies(q, "facts", stemsOf.flatMap((stems) => [...stems.values()]))
      return yield* Effect.forEach(stemsOf, (stems) => {
        const expression = selectiveExpression(stems, frequency)
        return expression === null
          ? Effect.succeed([] as ReadonlyArray<FactRow>)
          : q.facts({ expression, scope, statuses: ["active"], datePrefix: null, limit: CANDIDATES_PER_FACT })
      })
    }), () => facts.map(() => [] as ReadonlyArray<FactRow>)).pipe(Effect.catchTag("SqlError", Effect.die))

/** The current facts nearest each new fact's vector, nearest first; none for vectors of another dimension than the store's. */
const vectorCandidates = (stores: StoreCache, userId: string, vectors: ReadonlyArray<Float32Array>, scope: ScopeFilter) =>
  stores.read(userId, ({ sql }) =>
    Effect.gen(function*() {
      const vectorQueries = VectorQueries(sql)
      const space = yield* vectorQueries.space
      if (space === undefined || vectors.some((vector) => vector.length !== space.dimensions)) {
        return vectors.map(() => [] as ReadonlyArray<FactRow>)
      }
      const nearest = yield* vectorQueries.nearestEach("fact", vectors, space.dimensions, CANDIDATES_PER_FACT)
      const rows = yield* RetrievalQueries(sql).factsBySeq([...new Set(nearest.flat().map((row) => row.seq))], scope, ["active"])
      const bySeq = new Map(rows.map((row) => [row.seq, row]))
      return nearest.map((neighbours) => neighbours.flatMap((row) => bySeq.get(row.seq) ?? []))
    }), () => vectors.map(() => [] as ReadonlyArray<FactRow>)).pipe(Effect.catchTag("SqlError", Effect.die))

/**
 * What to do with each new fact, against similar current facts (its lexical candidates, found by
 * the caller, and its nearest by vector): a candidate that says the same (text aside from case and
 * punctuation) is a duplicate with no call; the rest are decided by one structured call for the
 * session. A decision naming no candidate of its fact is an add.
 */
export const reconcileFacts = (
  llm: ActiveLlm,
  stores: StoreCache,
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
  ProviderError | InvalidScope | StoreUnavailable
> =>
  Effect.gen(function*() {
    const nearest = Option.isSome(input.vectors) ? yield* vectorCandidates(stores, input.userId, input.vectors.value, input.scope) : []
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
  }).pipe(Effect.withSpan("Extractor.reconcile", { attributes: { facts: input.facts.length } }))
