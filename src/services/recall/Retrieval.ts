import { Effect, Either, Option } from "effect"
import { Degraded } from "../../api/RetrievalApi.js"
import { Embedder } from "../../llm/Embedder.js"
import { type EvidenceItem, factEvidence, turnEvidence } from "../../retrieval/evidence.js"
import { normalizeName, normalizedTextKeys } from "../../domain/text.js"
import { fuse, type Fused, type Leg, type LegItem } from "../../retrieval/fusion.js"
import { NEIGHBOURHOOD, rankConversationTurns, type RankedTurn } from "../../retrieval/conversationTurns.js"
import { analyseQuery, MAX_QUERY_WORDS } from "../../retrieval/query.js"
import type { FactRow, TurnRow } from "../../domain/records.js"
import { type RecallLegs, UserStore } from "../../storage/UserStore.js"
import { type ScopeParams, scopeFilter } from "../memories/memoryRecords.js"
import { span } from "../../util/span.js"

export interface RetrievalRequest extends ScopeParams {
  readonly query: string
  readonly top_k: number
  readonly include_superseded?: boolean
}

export interface RetrievalResult {
  readonly items: ReadonlyArray<EvidenceItem>
  readonly degraded: ReadonlyArray<Degraded>
}

type Candidate = { readonly kind: "fact"; readonly row: FactRow } | { readonly kind: "turn"; readonly row: TurnRow }

type Ranked = LegItem<Candidate>

const factCandidate = (row: FactRow): Ranked => ({ key: `ev_fact:${row.fact_id}`, value: { kind: "fact", row } })
const turnKey = (row: TurnRow) => `ev_raw:${row.turn_id}`
const turnCandidate = (row: TurnRow): Ranked => ({ key: turnKey(row), value: { kind: "turn", row } })
/** A turn as the conversation ranked it, with its routes: built whole, as a spread over a candidate is copied several times slower. */
const conversationCandidate = (turn: RankedTurn): Ranked => ({ key: turnKey(turn.row), value: { kind: "turn", row: turn.row }, routes: turn.routes })

/** Word n-grams (1 to 3) of a query's first words, normalized as entity names are. */
const nameGrams = (query: string) => {
  const words = normalizeName(query).split(" ").filter((word) => word !== "").slice(0, MAX_QUERY_WORDS)
  const grams = new Set<string>()
  for (let n = 1; n <= 3; n++) for (let i = 0; i + n <= words.length; i++) grams.add(words.slice(i, i + n).join(" "))
  return [...grams]
}

const VECTOR_CHANNELS = ["fact_events", "raw_turns"] as const

const NO_PROVENANCE = { roles: [], sources: [] } as const

/** How many candidates each leg contributes per hit asked for. */
const LEG_DEPTH = 3
/**
 * Candidates each leg contributes at least. A turn by the person the query names counts double:
 * one this far down by its words alone can still reach the first ten, whatever top_k is.
 */
const LEG_DEPTH_FLOOR = 60
/**
 * The vector leg's nearest neighbours, per hit asked for as the other legs, within these bounds:
 * beyond the most they rank too low to reach a result, and cost the most to find.
 */
const VECTOR_DEPTH = { least: 30, most: 50 }

/**
 * The time leg's candidates, of each kind when the date singles some out. A date the store holds
 * `depth` facts or turns or more on (a year of a conversation held in that year) says nothing about
 * which of them: its first ones in date order would only crowd out what the other legs found.
 */
const datedCandidates = (legs: RecallLegs, depth: number): ReadonlyArray<Ranked> => [
  ...(legs.datedFacts.length >= depth ? [] : legs.datedFacts.map(factCandidate)),
  ...(legs.datedTurns.length >= depth ? [] : legs.datedTurns.map(turnCandidate))
]

/**
 * Each leg's candidates, ranked, as fusion takes them. The turns found by words are ranked as a
 * conversation: by who speaks them and by the turns near them (retrieval/conversationTurns.ts).
 */
const rankedLegs = (query: string, depth: number, legs: RecallLegs): ReadonlyArray<{ leg: Leg; items: ReadonlyArray<Ranked> }> => {
  const vector = Either.getOrElse(legs.vector, () => ({ facts: [], turns: [] }))
  const conversation = rankConversationTurns({ query, lexical: legs.lexicalTurns, neighbours: legs.neighbours, neighbourhood: NEIGHBOURHOOD })
  return [
    { leg: "lexical_facts", items: legs.lexicalFacts.map(factCandidate) },
    { leg: "lexical_turns", items: conversation.map(conversationCandidate) },
    { leg: "vector_facts", items: vector.facts.map(factCandidate) },
    { leg: "vector_turns", items: vector.turns.map(turnCandidate) },
    { leg: "entity", items: legs.entityFacts.map(factCandidate) },
    { leg: "time", items: datedCandidates(legs, depth) }
  ]
}

/**
 * Recall with no LLM call. Each leg ranks what it finds; fusion adds them up by rank, merges
 * near-duplicates (a fact and the turn that says the same keep the fact) and keeps top_k.
 */
export class Retrieval extends Effect.Service<Retrieval>()("Memory/Retrieval", {
  effect: Effect.gen(function*() {
    const store = yield* UserStore
    const embedder = yield* Embedder

    // A missing local model names the command that brings it.
    const remedy = Option.match(embedder.remedy, { onNone: () => ({}), onSome: (command) => ({ command }) })

    /**
     * The vector leg could not run, for this reason: one entry per channel, as the contract lists
     * them. Built from typed strings, so not validated again here (encoding checks it).
     */
    const vectorSkipped = (reason: string) =>
      VECTOR_CHANNELS.map((channel) =>
        new Degraded({
          code: "vector_route_failed",
          message: `${reason} — vector route for ${channel} skipped`,
          details: { channel, ...remedy }
        }, true))

    /** The query's vector, or why there is none. */
    const queryVector = (query: string): Effect.Effect<Either.Either<Float32Array, string>> =>
      Option.match(embedder.active, {
        onNone: () => Effect.succeed(Either.left(embedder.reason)),
        onSome: (active) =>
          active.embedQuery(query).pipe(
            Effect.map(Either.right),
            Effect.catchTag("ProviderUnavailable", (error) => Effect.succeed(Either.left(`the query could not be embedded (${error.message})`)))
          )
      })

    const search = (request: RetrievalRequest) =>
      Effect.gen(function*() {
        const scope = scopeFilter(request)
        const analysis = analyseQuery(request.query)
        const statuses = request.include_superseded === true ? ["active", "superseded"] : ["active"]
        const depth = Math.max(request.top_k * LEG_DEPTH, LEG_DEPTH_FLOOR)
        const vector = yield* queryVector(request.query)
        const recalled = yield* store.recall(request.user_id, {
          terms: analysis.terms.slice(0, MAX_QUERY_WORDS),
          names: nameGrams(request.query),
          datePrefix: analysis.timePrefixes[0] ?? null,
          vector,
          scope,
          statuses,
          depth,
          vectorDepth: Math.min(Math.max(request.top_k * LEG_DEPTH, VECTOR_DEPTH.least), VECTOR_DEPTH.most),
          neighbourSeeds: NEIGHBOURHOOD.seeds,
          neighbourReach: NEIGHBOURHOOD.reach
        })
        if (Option.isNone(recalled)) {
          return { items: [], degraded: vectorSkipped(Either.isLeft(vector) ? vector.left : "the vector index is empty") } satisfies RetrievalResult
        }
        const legs = recalled.value
        const fused = mergeDuplicates(fuse(rankedLegs(request.query, depth, legs))).slice(0, request.top_k)
        const factIds = fused.flatMap((item) => item.value.kind === "fact" ? [item.value.row.fact_id] : [])
        // Turns alone have no provenance to read: no statement for them.
        const { roles, sources } = factIds.length === 0 ? NO_PROVENANCE : yield* store.provenance(request.user_id, factIds)
        const items = fused.map((item) => {
          const ranking = { routes: item.routes, score: Math.round(item.score * 1e6) / 1e6 }
          if (item.value.kind === "turn") return turnEvidence(item.value.row, ranking)
          const factId = item.value.row.fact_id
          return factEvidence(item.value.row, sources.filter((s) => s.fact_id === factId), roles.filter((r) => r.fact_id === factId), ranking)
        })
        return { items, degraded: Either.isLeft(legs.vector) ? vectorSkipped(legs.vector.left) : [] } satisfies RetrievalResult
      }).pipe(span("Retrieval.search"))

    return { search } as const
  })
}) {}

/** Keeps one of each statement: a fact over a turn that says the same, and their routes together. */
const mergeDuplicates = (items: ReadonlyArray<Fused<Candidate>>) => {
  const keys = normalizedTextKeys(items.map((item) => item.value.row.content))
  const kept = new Map<string | number, Fused<Candidate>>()
  for (const [i, item] of items.entries()) {
    const key = keys[i]!
    const existing = kept.get(key)
    if (existing === undefined) {
      kept.set(key, item)
      continue
    }
    const keep = existing.value.kind === "turn" && item.value.kind === "fact" ? item : existing
    const drop = keep === item ? existing : item
    for (const route of drop.routes) if (!keep.routes.some((r) => r.route === route.route)) keep.routes.push(route)
    keep.score = Math.max(keep.score, drop.score)
    kept.delete(key)
    kept.set(key, keep)
  }
  return [...kept.values()].sort((a, b) => b.score - a.score || a.key.localeCompare(b.key))
}
