import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { DOCUMENT_COUNT_CAP } from "../../lexicalTerms.js"
import { documentsHolding, indexable, type TermCounts, termLexemes } from "./lexical.js"
import type { VectorState } from "./vectorIndexes.js"

/** The user's row as a search reads it: their vector space and its counters, their indexed documents. */
interface UserRow {
  readonly embedding_model: string | null
  readonly embedding_dimensions: number | null
  readonly generation: string
  readonly facts_vectors_added: number
  readonly facts_vectors_removed: number
  readonly turns_vectors_added: number
  readonly turns_vectors_removed: number
  readonly facts_indexed: number
  readonly facts_lexemes: number
  readonly turns_indexed: number
  readonly turns_lexemes: number
}

const USER_COLUMNS = "embedding_model, embedding_dimensions, generation, facts_vectors_added, facts_vectors_removed, " +
  "turns_vectors_added, turns_vectors_removed, facts_indexed, facts_lexemes, turns_indexed, turns_lexemes"

/** The user's vector space with the counters their bits are copied at; none before their first vectors. */
const vectorState = (row: UserRow): VectorState | undefined =>
  row.embedding_model === null || row.embedding_dimensions === null ? undefined : {
    model: row.embedding_model,
    dimensions: row.embedding_dimensions,
    generation: row.generation,
    added: { facts: row.facts_vectors_added, turns: row.turns_vectors_added },
    removed: { facts: row.facts_vectors_removed, turns: row.turns_vectors_removed }
  }

/** What a search knows of a user before its legs run; undefined for a user without data. */
export interface UserSurvey {
  readonly vectors: VectorState | undefined
  /** How many facts the user holds (every fact is indexed): none, and the legs over facts have nothing to find. */
  readonly facts: TermCounts
  readonly turns: TermCounts
}

/** Whether the user has data, and their vector space (see `UserSurvey`), undefined for a user without data. */
export const userVectors = (sql: SqlClient.SqlClient, userId: string) =>
  Effect.map(sql<UserRow>`SELECT ${sql.literal(USER_COLUMNS)} FROM users WHERE user_id = ${userId}`, (rows) => {
    const row = rows[0]
    return row === undefined ? undefined : { vectors: vectorState(row) }
  })

/**
 * The user's row and how many of their facts and turns hold each query term (each count stopped
 * at the cap term selection needs; facts not counted when the user holds none), in one statement:
 * the first thing every leg of a search needs, one round trip for all of them.
 */
export const surveyUser = (sql: SqlClient.SqlClient, userId: string, terms: ReadonlyArray<string>) => {
  const distinct = [...new Set(terms)]
  const termRows = distinct.length === 0 ? sql`(SELECT NULL::text AS term, NULL::text AS lexeme WHERE FALSE)` : termLexemes(sql, distinct)
  return Effect.map(
    sql<UserRow & { readonly term: string | null; readonly lexeme: string | null; readonly facts_doc: number; readonly turns_doc: number }>`
      SELECT u.*, t.term, t.lexeme,
        CASE WHEN u.facts_indexed = 0 THEN 0 ELSE ${documentsHolding(sql, userId, "facts", DOCUMENT_COUNT_CAP)} END AS facts_doc,
        ${documentsHolding(sql, userId, "turns", DOCUMENT_COUNT_CAP)} AS turns_doc
      FROM (SELECT ${sql.literal(USER_COLUMNS)} FROM users WHERE user_id = ${userId}) AS u
      LEFT JOIN ${termRows} AS t ON TRUE`,
    (rows): UserSurvey | undefined => {
      const row = rows[0]
      if (row === undefined) return undefined
      const found = rows.flatMap((r) => r.term !== null && r.lexeme !== null && indexable(r.lexeme) ? [{ term: r.term, lexeme: r.lexeme, facts: r.facts_doc, turns: r.turns_doc }] : [])
      return {
        vectors: vectorState(row),
        facts: { terms: found.map((r) => ({ term: r.term, lexeme: r.lexeme, doc: r.facts })), documents: row.facts_indexed, lexemes: row.facts_lexemes },
        turns: { terms: found.map((r) => ({ term: r.term, lexeme: r.lexeme, doc: r.turns })), documents: row.turns_indexed, lexemes: row.turns_lexemes }
      }
    }
  )
}
