import type { SqlClient, SqlError } from "@effect/sql"
import { Effect, Either, Option } from "effect"
import { stemmer } from "stemmer"
import { Degraded } from "../../api/RetrievalApi.js"
import { type EvidenceItem, factEvidence, turnEvidence } from "../../retrieval/evidence.js"
import { fuse, type Fused, type Leg, normalizeName, normalizeText } from "../../retrieval/fusion.js"
import { analyseQuery, type QueryAnalysis, selectiveExpression } from "../../retrieval/query.js"
import type { FactRow, ScopeFilter } from "../../storage/sqlite/user/facts.js"
import { RetrievalQueries, type TurnRow } from "../../storage/sqlite/user/retrieval.js"
import { VectorQueries } from "../../storage/sqlite/user/vectors.js"
import { type ScopeParams, scopeFilter } from "../memories/memoryRecords.js"
import { Embedder } from "../../llm/Embedder.js"
import { StoreCache } from "../../storage/sqlite/StoreCache.js"

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

const factCandidate = (row: FactRow) => ({ key: `ev_fact:${row.fact_id}`, value: { kind: "fact", row } as Candidate })
const turnCandidate = (row: TurnRow) => ({ key: `ev_raw:${row.turn_id}`, value: { kind: "turn", row } as Candidate })

/** Word n-grams (1 to 3) of a query, normalized as entity names are. */
const nameGrams = (query: string) => {
  const words = normalizeName(query).split(" ").filter((word) => word !== "")
  const grams = new Set<string>()
  for (let n = 1; n <= 3; n++) for (let i = 0; i + n <= words.length; i++) grams.add(words.slice(i, i + n).join(" "))
  return [...grams]
}

const VECTOR_CHANNELS = ["fact_events", "raw_turns"] as const

interface Neighbours {
  readonly facts: ReadonlyArray<number>
  readonly turns: ReadonlyArray<number>
}

/**
 * The nearest facts and turns to the query's vector (rowids, nearest first), or why the vector
 * leg cannot run on this store: no query vector, no vectors yet, or vectors of another model.
 */
const nearestNeighbours = (
  sql: SqlClient.SqlClient,
  vector: Either.Either<Float32Array, string>,
  k: number
): Effect.Effect<Either.Either<Neighbours, string>, SqlError.SqlError> =>
  Effect.gen(function*() {
    if (Either.isLeft(vector)) return Either.left(vector.left)
    const vectors = VectorQueries(sql)
    const space = yield* vectors.space
    if (space === undefined) return Either.left("the vector index is empty")
    if (space.dimensions !== vector.right.length) {
      return Either.left(`the store's vectors have ${space.dimensions} dimensions (${space.model}), the embedder gives ${vector.right.length}; re-embed the store`)
    }
    const [facts, turns] = yield* Effect.all([
      vectors.nearest("fact", vector.right, space.dimensions, k),
      vectors.nearest("turn", vector.right, space.dimensions, k)
    ])
    return Either.right({ facts: facts.map((row) => row.seq), turns: turns.map((row) => row.seq) })
  })

/** How many documents of an index hold each stem; a stem the index lacks is absent. */
export const documentFrequencies = (q: ReturnType<typeof RetrievalQueries>, index: "facts" | "turns", stems: Iterable<string>) =>
  Effect.map(q.termFrequencies(index, [...new Set(stems)]), (rows) => new Map(rows.map((row) => [row.term, row.doc])))

/** The FTS5 expression of a query's selective terms for one index; null when none is left. */
const lexicalExpression = (q: ReturnType<typeof RetrievalQueries>, index: "facts" | "turns", stems: ReadonlyMap<string, string>) =>
  Effect.map(documentFrequencies(q, index, stems.values()), (frequency) => selectiveExpression(stems, frequency))

/** Runs every leg over one store: each a ranked list of candidates. */
const collectLegs = (
  sql: SqlClient.SqlClient,
  input: {
    readonly request: RetrievalRequest
    readonly analysis: QueryAnalysis
    readonly vector: Either.Either<Float32Array, string>
    readonly scope: ScopeFilter
    readonly statuses: ReadonlyArray<string>
    readonly depth: number
  }
) =>
  Effect.gen(function*() {
    const { analysis, depth, scope, statuses } = input
    const q = RetrievalQueries(sql)
    const nearest = yield* nearestNeighbours(sql, input.vector, Math.min(depth, VECTOR_DEPTH))
    const [vectorFacts, vectorTurns] = Either.isRight(nearest)
      ? yield* Effect.all([q.factsBySeq(nearest.right.facts, scope, statuses), q.turnsBySeq(nearest.right.turns, scope)])
      : [[], []]
    // The indexes hold Porter stems: each query term stemmed once, looked up in both.
    const stems = new Map(analysis.terms.map((term) => [term, stemmer(term)]))
    const [factExpression, turnExpression] = yield* Effect.all([lexicalExpression(q, "facts", stems), lexicalExpression(q, "turns", stems)])
    const [facts, turns, entityFacts] = yield* Effect.all([
      factExpression === null ? Effect.succeed([]) : q.facts({ expression: factExpression, scope, statuses, datePrefix: null, limit: depth }),
      turnExpression === null ? Effect.succeed([]) : q.turns({ expression: turnExpression, scope, datePrefix: null, limit: depth }),
      q.factsOfEntities({ names: nameGrams(input.request.query), scope, statuses, limit: depth })
    ])
    const datePrefix = analysis.timePrefixes[0] ?? null
    // Everything on the named date; fusion then favours what the other legs also found.
    const dated = datePrefix === null
      ? []
      : [
        ...(yield* q.facts({ expression: null, scope, statuses, datePrefix, limit: depth })).map(factCandidate),
        ...(yield* q.turns({ expression: null, scope, datePrefix, limit: depth })).map(turnCandidate)
      ]
    const neighbours = yield* q.neighbours(turns.slice(0, NEIGHBOUR_SEEDS), scope)
    const seedOrder = new Map(turns.map((turn, i) => [turn.session_id, i]))
    const legs: Array<{ leg: Leg; items: ReadonlyArray<{ key: string; value: Candidate }> }> = [
      { leg: "lexical_facts", items: facts.map(factCandidate) },
      { leg: "lexical_turns", items: turns.map(turnCandidate) },
      { leg: "vector_facts", items: vectorFacts.map(factCandidate) },
      { leg: "vector_turns", items: vectorTurns.map(turnCandidate) },
      { leg: "entity", items: entityFacts.map(factCandidate) },
      { leg: "time", items: dated },
      {
        leg: "neighbourhood",
        items: [...neighbours].sort((a, b) => (seedOrder.get(a.session_id) ?? 0) - (seedOrder.get(b.session_id) ?? 0)).map(turnCandidate)
      }
    ]
    return { legs, nearest }
  })

/** How many candidates each leg contributes per hit asked for. */
const LEG_DEPTH = 3
/** Nearest neighbours beyond this many rank too low to reach a result, and cost the most to find. */
const VECTOR_DEPTH = 50
const NEIGHBOUR_SEEDS = 10

/**
 * Recall with no LLM call. Each leg ranks what it finds; fusion adds them up by rank, merges
 * near-duplicates (a fact and the turn that says the same keep the fact) and keeps top_k.
 */
export class Retrieval extends Effect.Service<Retrieval>()("Memory/Retrieval", {
  effect: Effect.gen(function*() {
    const stores = yield* StoreCache
    const embedder = yield* Embedder

    /** The vector leg could not run, for this reason: one entry per channel, as the contract lists them. */
    const vectorSkipped = (reason: string) =>
      VECTOR_CHANNELS.map((channel) =>
        new Degraded({
          code: "vector_route_failed",
          message: `${reason} — vector route for ${channel} skipped`,
          details: { channel }
        }))

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
        const depth = Math.max(request.top_k * LEG_DEPTH, 30)
        const vector = yield* queryVector(request.query)
        return yield* stores.read(request.user_id, ({ sql }) =>
          Effect.gen(function*() {
            const q = RetrievalQueries(sql)
            const { legs, nearest } = yield* collectLegs(sql, { request, analysis, vector, scope, statuses, depth })
            const fused = mergeDuplicates(fuse(legs)).slice(0, request.top_k)
            const factIds = fused.flatMap((item) => item.value.kind === "fact" ? [item.value.row.fact_id] : [])
            const [sources, roles] = yield* Effect.all([q.sources(factIds), q.roles(factIds)])
            const items = fused.map((item) => {
              const ranking = { routes: item.routes, score: Math.round(item.score * 1e6) / 1e6 }
              if (item.value.kind === "turn") return turnEvidence(item.value.row, ranking)
              const factId = item.value.row.fact_id
              return factEvidence(item.value.row, sources.filter((s) => s.fact_id === factId), roles.filter((r) => r.fact_id === factId), ranking)
            })
            return { items, degraded: Either.isLeft(nearest) ? vectorSkipped(nearest.left) : [] } satisfies RetrievalResult
          }), () => ({
            items: [],
            degraded: vectorSkipped(Either.isLeft(vector) ? vector.left : "the vector index is empty")
          }) satisfies RetrievalResult)
      }).pipe(Effect.catchTag("SqlError", Effect.die), Effect.withSpan("Retrieval.search"))

    return { search } as const
  })
}) {}

const textOf = (candidate: Candidate) => normalizeText(candidate.row.content)

/** Keeps one of each statement: a fact over a turn that says the same, and their routes together. */
const mergeDuplicates = (items: ReadonlyArray<Fused<Candidate>>) => {
  const kept = new Map<string, Fused<Candidate>>()
  for (const item of items) {
    const text = textOf(item.value)
    const existing = kept.get(text)
    if (existing === undefined) {
      kept.set(text, item)
      continue
    }
    const keep = existing.value.kind === "turn" && item.value.kind === "fact" ? item : existing
    const drop = keep === item ? existing : item
    for (const route of drop.routes) if (!keep.routes.some((r) => r.route === route.route)) keep.routes.push(route)
    keep.score = Math.max(keep.score, drop.score)
    kept.delete(text)
    kept.set(text, keep)
  }
  return [...kept.values()].sort((a, b) => b.score - a.score || a.key.localeCompare(b.key))
}
