import type { SqlClient, SqlError, Statement } from "@effect/sql"
import { Effect } from "effect"
import type { ScopeFilter, Scored, TurnRow } from "../../../domain/records.js"
import { DOCUMENT_COUNT_CAP, selectiveTerms } from "../../lexicalTerms.js"
import { type IndexedTable, POSTINGS } from "./postings.js"
import type { UserReads } from "./reads.js"

/** A query term's lexeme, how many of the user's documents hold it, and its weight in their collection. */
interface Weighted {
  readonly lexeme: string
  readonly documents: number
  readonly idf: number
}

/** How many of the user's documents of a table hold each term (the term's lexeme beside it), and the size of the whole collection. */
export interface TermCounts {
  readonly terms: ReadonlyArray<{ readonly term: string; readonly lexeme: string; readonly doc: number }>
  /** The user's documents in the table, and their lexemes. */
  readonly documents: number
  readonly lexemes: number
}

/** The terms a search looks a table up by, and the collection's mean length in lexemes. */
interface Selected {
  readonly table: IndexedTable
  readonly weighted: ReadonlyArray<Weighted>
  readonly meanLength: number
}

/** A term the index keeps as one lexeme: not a stop word (no lexeme), not split in several. */
export const indexable = (lexeme: string | null) => lexeme !== null && lexeme !== "" && !lexeme.includes(" ")

/**
 * How many ranked documents a lexical leg reads for each result it answers: enough for the rows
 * that status or scope hide, before it reads them all.
 */
const CANDIDATES_PER_RESULT = 4

/** Each of `terms` (non-empty) beside its lexeme, its stem as the postings hold it ("" for a stop word): rows (term, lexeme). */
export const termLexemes = (sql: SqlClient.SqlClient, terms: ReadonlyArray<string>) =>
  sql`(SELECT term, array_to_string(tsvector_to_array(to_tsvector('english', term)), ' ') AS lexeme
    FROM (VALUES ${sql.join(", ", false)(terms.map((term) => sql`(${term}::text)`))}) AS v (term))`

/** How many of the user's documents of a table hold the lexeme `t.lexeme`, counted up to `cap` (all when null). */
export const documentsHolding = (sql: SqlClient.SqlClient, userId: string, table: IndexedTable, cap: number | null) =>
  sql`(SELECT count(*) FROM (SELECT 1 FROM ${sql(POSTINGS[table])} p WHERE p.user_id = ${userId} AND p.lexeme = t.lexeme
    ${cap === null ? sql`` : sql`LIMIT ${cap}`}) AS matching)`

/** The lexical legs over one user's data: bm25 over the postings of their facts and turns. */
export const UserLexical = (sql: SqlClient.SqlClient, userId: string, reads: ReturnType<typeof UserReads>) => {
  /**
   * Each term's lexeme (its stem, as the postings hold it) and how many of the user's documents
   * hold it (counted up to the cap selection needs), with the size and lexemes of the user's whole
   * collection, in one statement; terms the index would drop (stop words) are left out.
   */
  const lexemes = (table: IndexedTable, terms: ReadonlyArray<string>, cap: number | null) =>
    Effect.map(
      sql<{ readonly term: string; readonly lexeme: string; readonly doc: number; readonly documents: number; readonly lexemes: number }>`
        SELECT t.term, t.lexeme, ${documentsHolding(sql, userId, table, cap)} AS doc, u.documents, u.lexemes
        FROM ${termLexemes(sql, terms)} AS t
        CROSS JOIN (SELECT ${sql.literal(`${table}_indexed`)} AS documents, ${sql.literal(`${table}_lexemes`)} AS lexemes FROM users WHERE user_id = ${userId}) AS u`,
      (rows): TermCounts => ({
        terms: rows.filter((row) => indexable(row.lexeme)),
        documents: rows[0]?.documents ?? 0,
        lexemes: rows[0]?.lexemes ?? 0
      })
    )

  /** Counts stopped at the cap selection allows, counted whole when every term reaches it. */
  const whole = (table: IndexedTable, counts: TermCounts) =>
    counts.terms.length > 0 && counts.terms.every((row) => row.doc >= DOCUMENT_COUNT_CAP)
      ? lexemes(table, counts.terms.map((row) => row.term), null)
      : Effect.succeed(counts)

  /**
   * The selective terms of a table, as every backend bounds a search's lexical work, each with its
   * inverse document frequency as bm25 weighs it (SQLite FTS5's: never below a millionth), and the
   * collection's mean length in lexemes.
   */
  const selective = (table: IndexedTable, counts: TermCounts): Selected => {
    const byTerm = new Map(counts.terms.map((row) => [row.term, row]))
    const selected = selectiveTerms([...byTerm.keys()], (term) => byTerm.get(term)?.doc ?? 0)
    const weighted = selected.map((term): Weighted => {
      const { doc, lexeme } = byTerm.get(term)!
      return { lexeme, documents: doc, idf: Math.max(1e-6, Math.log((counts.documents - doc + 0.5) / (doc + 0.5))) }
    })
    return { table, weighted, meanLength: Math.max(1, counts.lexemes / Math.max(1, counts.documents)) }
  }

  /** The selective terms of a table from counts stopped at the cap (counted whole here when every term reaches it). */
  const selectiveOf = (table: IndexedTable, counts: TermCounts) => Effect.map(whole(table, counts), (all) => selective(table, all))

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
      // Counts stopped at the cap are only a floor: then more documents than counted may match.
      const counted = selected.weighted.every((term) => term.documents < DOCUMENT_COUNT_CAP)
      const matching = selected.weighted.reduce((sum, term) => sum + term.documents, 0)
      // Terms no document holds (a table the user has nothing in) need no statement to say so.
      if (selected.weighted.length === 0 || (counted && matching === 0)) return [] as ReadonlyArray<Row>
      const candidates = limit * CANDIDATES_PER_RESULT
      const first = yield* rows(ranked(selected, candidates))
      const allRanked = counted && matching <= candidates
      return first.length >= limit || allRanked ? first : yield* rows(ranked(selected, null))
    })

  return {
    /** How many of the user's documents of a table hold each of the terms, counted up to the cap selection needs. */
    counts: (table: IndexedTable, terms: ReadonlyArray<string>): Effect.Effect<TermCounts, SqlError.SqlError> => {
      const distinct = [...new Set(terms)]
      return distinct.length === 0 ? Effect.succeed({ terms: [], documents: 0, lexemes: 0 }) : lexemes(table, distinct, DOCUMENT_COUNT_CAP)
    },

    /** The best facts by the selective ones of the counted terms. */
    facts: (terms: TermCounts, scope: ScopeFilter, statuses: ReadonlyArray<string>, limit: number) =>
      Effect.flatMap(selectiveOf("facts", terms), (selected) => bestMatching(selected, limit, (ranked) => reads.factsRanked(ranked, scope, statuses, limit))),

    /** The best turns by the selective ones of the terms, each with its bm25 score (its rank negated). */
    turns: (terms: TermCounts, scope: ScopeFilter, limit: number) =>
      Effect.flatMap(selectiveOf("turns", terms), (selected) =>
        bestMatching(selected, limit, (ranked) =>
          Effect.map(reads.turnsRanked(ranked, scope, limit), (turns) => turns.map(({ rank, row }): Scored<TurnRow> => ({ row, score: -rank })))))
  }
}
