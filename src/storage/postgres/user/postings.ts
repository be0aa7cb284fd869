import type { SqlClient, Statement } from "@effect/sql"
import { Effect } from "effect"
import { inList } from "./rows.js"

/** The tables that can be searched by their words, and where each keeps its postings. */
export type IndexedTable = "facts" | "turns"
export const POSTINGS: Record<IndexedTable, string> = { facts: "fact_postings", turns: "turn_postings" }

/**
 * The postings of one user's rows of a table: one a lexeme of a row, with its frequency there and
 * the row's length in lexemes, which is what bm25 reads. Every write of a searchable row keeps
 * them in the same statement or transaction.
 */
export const UserPostings = (sql: SqlClient.SqlClient, userId: string) => {
  const posting = (rows: Statement.Fragment) =>
    sql`SELECT ${userId}, u.lexeme, r.seq, cardinality(u.positions), length(r.search) FROM ${rows} r, unnest(r.search) AS u`
  const columns = sql.literal("(user_id, lexeme, seq, frequency, document_length)")

  return {
    /**
     * Runs `insert` (an INSERT of the table's rows, without RETURNING), indexes the rows it wrote
     * and adds them to the user's count of indexed documents and lexemes (which bm25 reads), in one
     * statement, with `alongside` (further data-modifying CTEs, `name AS (…)`, that read none of
     * these); answers each row's seq, its `also` columns and its length as `lexemes`.
     */
    insert: <A extends object>(table: IndexedTable, insert: Statement.Fragment, also: string, alongside: ReadonlyArray<Statement.Fragment> = []) =>
      sql<A & { readonly seq: number; readonly lexemes: number }>`
        WITH inserted AS (${insert} RETURNING seq, search, ${sql.literal(also)}),
        indexed AS (INSERT INTO ${sql(POSTINGS[table])} ${columns} ${posting(sql.literal("inserted"))}),
        counted AS (UPDATE users SET ${sql.literal(`${table}_indexed = ${table}_indexed`)} + (SELECT count(*) FROM inserted),
          ${sql.literal(`${table}_lexemes = ${table}_lexemes`)} + (SELECT coalesce(sum(length(search)), 0) FROM inserted) WHERE user_id = ${userId})
        ${sql.join("", false)(alongside.map((cte) => sql`, ${cte}`))}
        SELECT seq, ${sql.literal(also)}, length(search) AS lexemes FROM inserted`,

    /** Deletes the table's rows that `where` names with their postings; answers each row's length. */
    delete: (table: IndexedTable, where: Statement.Fragment) =>
      sql<{ readonly lexemes: number }>`
        WITH removed AS (DELETE FROM ${sql(table)} WHERE user_id = ${userId} AND ${where} RETURNING seq, search),
        unindexed AS (DELETE FROM ${sql(POSTINGS[table])} p USING removed r, unnest(tsvector_to_array(r.search)) AS l (lexeme)
          WHERE p.user_id = ${userId} AND p.lexeme = l.lexeme AND p.seq = r.seq)
        SELECT length(search) AS lexemes FROM removed`,

    /**
     * Runs `update` (an UPDATE of the table's rows `seqs` that changes their searchable text,
     * without RETURNING) and indexes those rows again; answers by how many lexemes their length changed.
     */
    reindexed: (table: IndexedTable, seqs: ReadonlyArray<number>, update: Statement.Fragment) =>
      Effect.gen(function*() {
        const [before] = yield* sql<{ readonly lexemes: number }>`
          WITH unindexed AS (DELETE FROM ${sql(POSTINGS[table])} p USING ${sql(table)} r, unnest(tsvector_to_array(r.search)) AS l (lexeme)
            WHERE r.user_id = ${userId} AND ${inList(sql, "r.seq", seqs)} AND p.user_id = ${userId} AND p.lexeme = l.lexeme AND p.seq = r.seq)
          SELECT coalesce(sum(length(search)), 0) AS lexemes FROM ${sql(table)} WHERE user_id = ${userId} AND ${inList(sql, "seq", seqs)}`
        const [after] = yield* sql<{ readonly lexemes: number }>`
          WITH updated AS (${update} RETURNING seq, search),
          indexed AS (INSERT INTO ${sql(POSTINGS[table])} ${columns} ${posting(sql.literal("updated"))})
          SELECT coalesce(sum(length(search)), 0) AS lexemes FROM updated`
        return Number(after?.lexemes ?? 0) - Number(before?.lexemes ?? 0)
      }),

    /** The user's postings of the table built again from its rows, after the rows were written in bulk. */
    rebuild: (table: IndexedTable) =>
      Effect.zipRight(
        sql`DELETE FROM ${sql(POSTINGS[table])} WHERE user_id = ${userId}`,
        sql`INSERT INTO ${sql(POSTINGS[table])} ${columns} ${posting(sql`(SELECT seq, search FROM ${sql(table)} WHERE user_id = ${userId})`)}`
      )
  }
}
