import type { SqlClient, SqlError, Statement } from "@effect/sql"
import { Effect, Either, Option } from "effect"
import type { FactRow, ScopeFilter, TurnRow } from "../../../domain/records.js"
import { DOCUMENT_COUNT_CAP, selectiveTerms } from "../../lexicalTerms.js"
import { inSessionOrder } from "../../neighbourhood.js"
import type { RecallLegs, RecallQuery } from "../../UserStore.js"
import { UserReads } from "./reads.js"
import { type IndexedTable, POSTINGS } from "./postings.js"
import { FACT_COLUMNS, inList, scopedTo, TURN_COLUMNS } from "./rows.js"
import type { VectorIndexes, VectorState, VectorTable } from "./vectorIndexes.js"

/** A query term's lexeme, how many of the user's documents hold it, and its weight in their collection. */
interface Weighted {
  readonly lexeme: string
  readonly documents: number
  readonly idf: number
}

/** The terms a search looks a table up by, and the collection's mean length in lexemes. */
interface Selected {
  readonly table: IndexedTable
  readonly weighted: ReadonlyArray<Weighted>
  readonly meanLength: number
}

/**
 * How many ranked documents a lexical leg reads for each result it answers: enough for the rows
 * that status or scope hide, before it reads them all.
 */
const CANDIDATES_PER_RESULT = 4

/** The retrieval legs over one user's data, on tsvector columns (English stemming) and pgvector. */
export const UserRecall = (sql: SqlClient.SqlClient, userId: string, indexes: VectorIndexes) => {
  const reads = UserReads(sql, userId)
  const visible = (statuses: ReadonlyArray<string>) => inList(sql, "f.status", statuses)
  const turnsJoin = sql`turns t JOIN sessions s ON s.user_id = t.user_id AND s.session_id = t.session_id`
  // Local dates sort as text: a prefix is the range [prefix, prefix + "~").
  const onDate = (column: string, prefix: string | null) =>
    prefix === null ? sql`TRUE` : sql`${sql.literal(column)} >= ${prefix} AND ${sql.literal(column)} < ${`${prefix}~`}`

  /**
   * Each term's lexeme (its stem, as the postings hold it) and how many of the user's documents
   * hold it (counted up to the cap selection needs), with the size and lexemes of the user's whole
   * collection, in one statement; terms the index would drop (stop words) are left out.
   */
  const lexemes = (table: IndexedTable, terms: ReadonlyArray<string>, cap: number | null) =>
    Effect.map(
      sql<{ readonly term: string; readonly lexeme: string; readonly doc: number; readonly documents: number; readonly lexemes: number }>`
        SELECT t.term, t.lexeme, (
          SELECT count(*) FROM (SELECT 1 FROM ${sql(POSTINGS[table])} p WHERE p.user_id = ${userId} AND p.lexeme = t.lexeme
          ${cap === null ? sql`` : sql`LIMIT ${cap}`}) AS matching) AS doc, u.documents, u.lexemes
        FROM (SELECT term, array_to_string(tsvector_to_array(to_tsvector('english', term)), ' ') AS lexeme
          FROM (VALUES ${sql.join(", ", false)(terms.map((term) => sql`(${term}::text)`))}) AS v (term)) AS t
        CROSS JOIN (SELECT ${sql.literal(`${table}_indexed`)} AS documents, ${sql.literal(`${table}_lexemes`)} AS lexemes FROM users WHERE user_id = ${userId}) AS u`,
      (rows) => rows.filter((row) => row.lexeme !== "" && !row.lexeme.includes(" "))
    )

  /** The terms' counts, stopped at the cap selection allows; counted whole when every term reaches it. */
  const counted = (table: IndexedTable, terms: ReadonlyArray<string>) =>
    Effect.flatMap(lexemes(table, terms, DOCUMENT_COUNT_CAP), (rows) =>
      rows.length > 0 && rows.every((row) => row.doc >= DOCUMENT_COUNT_CAP) ? lexemes(table, rows.map((row) => row.term), null) : Effect.succeed(rows))

  /**
   * The selective terms of a table, as every backend bounds a search's lexical work, each with its
   * inverse document frequency as bm25 weighs it (SQLite FTS5's: never below a millionth), and the
   * collection's mean length in lexemes.
   */
  const selective = (table: IndexedTable, terms: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      const distinct = [...new Set(terms)]
      const found = distinct.length === 0 ? [] : yield* counted(table, distinct)
      const first = found[0]
      if (first === undefined) return { table, weighted: [] as ReadonlyArray<Weighted>, meanLength: 1 }
      const byTerm = new Map(found.map((row) => [row.term, row]))
      const selected = selectiveTerms([...byTerm.keys()], (term) => byTerm.get(term)?.doc ?? 0)
      const weighted = selected.map((term): Weighted => {
        const { doc, lexeme } = byTerm.get(term)!
        return { lexeme, documents: doc, idf: Math.max(1e-6, Math.log((first.documents - doc + 0.5) / (doc + 0.5))) }
      })
      return { table, weighted, meanLength: Math.max(1, first.lexemes / Math.max(1, first.documents)) }
    })

  /**
   * A statement answering the seqs of the documents holding any of the terms and their rank, best
   * first by bm25 (k1 1.2, b 0.75, as SQLite FTS5 ranks; a term's frequency and a document's length
   * as its postings hold them): the first `candidates` of them, or all.
   */
  const ranked = ({ meanLength, table, weighted }: Selected, candidates: number | null) => {
    const score = sql`w.idf * p.frequency * 2.2::float8 / (p.frequency + 1.2::float8 * (0.25::float8 + 0.75::float8 * p.document_length / ${meanLength}::float8))`
    // One term scores each of its documents once; more are summed per document. The rank is the
    // score negated: rows read best first order by it ascending.
    return sql`
      SELECT p.seq, -(${weighted.length === 1 ? score : sql`sum(${score})`}) AS rank FROM ${sql(POSTINGS[table])} p
      JOIN (VALUES ${sql.join(", ", false)(weighted.map((term) => sql`(${term.lexeme}::text, ${term.idf}::float8)`))}) AS w (lexeme, idf) ON w.lexeme = p.lexeme
      WHERE p.user_id = ${userId} ${weighted.length === 1 ? sql`` : sql`GROUP BY p.seq`}
      ORDER BY rank, p.seq ${candidates === null ? sql`` : sql`LIMIT ${candidates}`}`
  }

  /**
   * The best `limit` documents the row query keeps of those ranked: first from a few times as many
   * candidates as asked for, and from all of them only when too few of those are kept (hidden by
   * status or scope), so that the answer is the same as ranking all.
   */
  const bestMatching = <Row>(selected: Selected, limit: number, rows: (ranked: Statement.Fragment) => Effect.Effect<ReadonlyArray<Row>, SqlError.SqlError>) =>
    Effect.gen(function*() {
      if (selected.weighted.length === 0) return [] as ReadonlyArray<Row>
      const candidates = limit * CANDIDATES_PER_RESULT
      const first = yield* rows(ranked(selected, candidates))
      // Counts stopped at the cap are only a floor: then more documents than counted may match.
      const counted = selected.weighted.every((term) => term.documents < DOCUMENT_COUNT_CAP)
      const allRanked = counted && selected.weighted.reduce((sum, term) => sum + term.documents, 0) <= candidates
      return first.length >= limit || allRanked ? first : yield* rows(ranked(selected, null))
    })

  const factsMatching = (selected: Selected, scope: ScopeFilter, statuses: ReadonlyArray<string>, limit: number) =>
    bestMatching(selected, limit, (ranked) => reads.factsRanked(ranked, scope, statuses, limit))

  const turnsMatching = (selected: Selected, scope: ScopeFilter, limit: number) =>
    bestMatching(selected, limit, (ranked) => reads.turnsRanked(ranked, scope, limit))

  /** Facts by the selective ones of the terms. */
  const selectedFacts = (terms: ReadonlyArray<string>, scope: ScopeFilter, statuses: ReadonlyArray<string>, limit: number) =>
    Effect.flatMap(selective("facts", terms), (selected) => factsMatching(selected, scope, statuses, limit))

  /**
   * Whether the user has data, and their vector space with the counters their bits are copied at
   * (none before their first vectors); undefined for a user without data.
   */
  const userState = Effect.map(
    sql<{
      readonly embedding_model: string | null
      readonly embedding_dimensions: number | null
      readonly generation: string
      readonly facts_vectors_added: number
      readonly facts_vectors_removed: number
      readonly turns_vectors_added: number
      readonly turns_vectors_removed: number
    }>`
      SELECT embedding_model, embedding_dimensions, generation, facts_vectors_added, facts_vectors_removed, turns_vectors_added, turns_vectors_removed
      FROM users WHERE user_id = ${userId}`,
    (rows): { readonly vectors: VectorState | undefined } | undefined => {
      const row = rows[0]
      if (row === undefined) return undefined
      return {
        vectors: row.embedding_model === null || row.embedding_dimensions === null ? undefined : {
          model: row.embedding_model,
          dimensions: row.embedding_dimensions,
          generation: row.generation,
          added: { facts: row.facts_vectors_added, turns: row.turns_vectors_added },
          removed: { facts: row.facts_vectors_removed, turns: row.turns_vectors_removed }
        }
      }
    }
  )

  const vectorLeg = (query: RecallQuery, state: VectorState | undefined) =>
    Effect.gen(function*() {
      const { vector } = query
      if (Either.isLeft(vector)) return Either.left(vector.left)
      if (state === undefined) return Either.left("the vector index is empty")
      if (state.dimensions !== vector.right.length) {
        return Either.left(`the store's vectors have ${state.dimensions} dimensions (${state.model}), the embedder gives ${vector.right.length}; re-embed the store`)
      }
      const target = (table: VectorTable) => ({ userId, table, state })
      const { facts, turns } = yield* Effect.all({
        facts: indexes.nearest(sql, target("facts"), vector.right, query.vectorDepth, (ranked) => reads.factsRanked(ranked, query.scope, query.statuses, null)),
        turns: indexes.nearest(sql, target("turns"), vector.right, query.vectorDepth, (ranked) => reads.turnsRanked(ranked, query.scope, null))
      }, { concurrency: "unbounded" })
      return Either.right({ facts, turns })
    })

  /** Facts of the entities named, then the facts one edge away from them; direct ones first. */
  const entityLeg = (query: RecallQuery) =>
    Effect.gen(function*() {
      const { depth: limit, names, scope, statuses } = query
      if (names.length === 0) return [] as ReadonlyArray<FactRow>
      const direct = (yield* sql<{ readonly fact_id: string }>`
        SELECT f.fact_id, max(f.seq) AS seq FROM entities e
        JOIN fact_entity_roles r ON r.user_id = e.user_id AND r.entity_id = e.entity_id
        JOIN facts f ON f.user_id = r.user_id AND f.fact_id = r.fact_id
        WHERE e.user_id = ${userId} AND ${inList(sql, "e.normalized_name", names)} AND ${visible(statuses)} AND ${scopedTo(sql, "f", scope)}
        GROUP BY f.fact_id ORDER BY seq DESC LIMIT ${limit}`).map((row) => row.fact_id)
      if (direct.length === 0) return []
      const hop = (yield* sql<{ readonly fact_id: string }>`
        SELECT dst_id AS fact_id FROM edges WHERE user_id = ${userId} AND ${inList(sql, "src_fact_id", direct)}
        UNION SELECT src_fact_id FROM edges WHERE user_id = ${userId} AND ${inList(sql, "dst_id", direct)}`).map((row) => row.fact_id)
      const distance = new Map<string, number>([...hop.map((id) => [id, 1] as const), ...direct.map((id) => [id, 0] as const)])
      const rows = yield* sql<FactRow>`
        SELECT ${sql.literal(FACT_COLUMNS)} FROM facts f
        WHERE f.user_id = ${userId} AND ${inList(sql, "f.fact_id", [...distance.keys()])} AND ${visible(statuses)} AND ${scopedTo(sql, "f", scope)}`
      return [...rows].sort((a, b) => (distance.get(a.fact_id) ?? 1) - (distance.get(b.fact_id) ?? 1) || b.seq - a.seq).slice(0, limit)
    })

  const timeLeg = (query: RecallQuery) => {
    const { datePrefix, depth: limit, scope, statuses } = query
    if (datePrefix === null) return Effect.succeed({ facts: [] as ReadonlyArray<FactRow>, turns: [] as ReadonlyArray<TurnRow> })
    return Effect.all({
      facts: sql<FactRow>`SELECT ${sql.literal(FACT_COLUMNS)} FROM facts f
        WHERE f.user_id = ${userId} AND ${visible(statuses)} AND ${scopedTo(sql, "f", scope)} AND ${onDate("f.occurred_at", datePrefix)}
        ORDER BY f.occurred_at, f.seq LIMIT ${limit}`,
      turns: sql<TurnRow>`SELECT ${sql.literal(TURN_COLUMNS)} FROM ${turnsJoin}
        WHERE t.user_id = ${userId} AND ${scopedTo(sql, "t", scope)} AND ${onDate("s.session_time", datePrefix)}
        ORDER BY s.session_time, t.seq LIMIT ${limit}`
    })
  }

  /** The turns just before and after the best lexical turns (the seeds) in their sessions. */
  const neighbourhoodLeg = (lexicalTurns: ReadonlyArray<TurnRow>, seeds: number, scope: ScopeFilter) => {
    const seeded = lexicalTurns.slice(0, seeds)
    return seeded.length === 0 ? Effect.succeed([] as ReadonlyArray<TurnRow>) : Effect.map(
      sql<TurnRow>`SELECT ${sql.literal(TURN_COLUMNS)} FROM ${turnsJoin}
        WHERE t.user_id = ${userId} AND ${scopedTo(sql, "t", scope)} AND (${
        sql.or(seeded.map((turn) => sql`(t.session_id = ${turn.session_id} AND t.position IN (${turn.position - 1}, ${turn.position + 1}))`))
      }) ORDER BY t.seq`,
      (rows) => inSessionOrder(rows, lexicalTurns)
    )
  }

  return {
    legs: (query: RecallQuery) =>
      Effect.gen(function*() {
        const { depth: limit, scope, statuses } = query
        // The legs are independent statements: each runs on a connection of its own, at once, the
        // user's row (are there data? which vectors?) with them, and the neighbourhood as soon as
        // the lexical turns are known; a user without data has no legs.
        const [known, lexicalFacts, [lexicalTurns, neighbours], entityFacts, dated] = yield* Effect.all([
          Effect.flatMap(userState, (user) => user === undefined ? Effect.succeed(undefined) : Effect.map(vectorLeg(query, user.vectors), (vector) => ({ vector }))),
          selectedFacts(query.terms, scope, statuses, limit),
          Effect.flatMap(selective("turns", query.terms), (terms) => turnsMatching(terms, scope, limit)).pipe(
            Effect.flatMap((turns) => Effect.map(neighbourhoodLeg(turns, query.neighbourSeeds, scope), (near) => [turns, near] as const))
          ),
          entityLeg(query),
          timeLeg(query)
        ], { concurrency: "unbounded" })
        if (known === undefined) return Option.none<RecallLegs>()
        return Option.some<RecallLegs>({
          lexicalFacts,
          lexicalTurns,
          vector: known.vector,
          entityFacts,
          datedFacts: dated.facts,
          datedTurns: dated.turns,
          neighbours
        })
      }),

    similarFacts: (options: { readonly terms: ReadonlyArray<ReadonlyArray<string>>; readonly scope: ScopeFilter; readonly limit: number }) =>
      Effect.forEach(options.terms, (terms) => selectedFacts(terms, options.scope, ["active"], options.limit)),

    nearestFacts: (options: { readonly vectors: ReadonlyArray<Float32Array>; readonly scope: ScopeFilter; readonly limit: number }) =>
      Effect.gen(function*() {
        const state = (yield* userState)?.vectors
        if (state === undefined || options.vectors.some((vector) => vector.length !== state.dimensions)) {
          return options.vectors.map(() => [] as ReadonlyArray<FactRow>)
        }
        return yield* Effect.forEach(options.vectors, (vector) =>
          indexes.nearest(sql, { userId, table: "facts", state }, vector, options.limit, (ranked) => reads.factsRanked(ranked, options.scope, ["active"], null)))
      })
  }
}
