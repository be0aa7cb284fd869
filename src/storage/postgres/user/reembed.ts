import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { VectorSpace } from "../../../domain/records.js"
import type { RowToEmbed } from "../../UserStore.js"
import { chunks } from "../../transfer/chunks.js"
import { byParts, inList, vectorText } from "./rows.js"
import { lockedTransaction } from "./writes.js"

const TABLES = ["facts", "turns"] as const
type Table = (typeof TABLES)[number]
const indexOf = (table: Table): RowToEmbed["index"] => (table === "facts" ? "fact" : "turn")
const stagedTable = (table: Table) => `${indexOf(table)}_vectors_staged`

/** Vectors staged per statement: one JSON document of them each. */
const STAGED_PER_STATEMENT = 500

/** Where a user's vectors of a space go: their rows, or staging while the user's vectors are of another space. */
interface Target {
  readonly staged: boolean
}

/**
 * Re-embedding one user's data toward a vector space. Vectors of the user's own space (or of a
 * user with none yet) go into their rows; those of another space are staged until every row has
 * one, then replace the rows' vectors in the transaction that stages the last of them.
 */
export const UserReembed = (sql: SqlClient.SqlClient, userId: string) => {
  const spaceOf = Effect.map(
    sql<{ readonly embedding_model: string | null; readonly embedding_dimensions: number | null }>`
      SELECT embedding_model, embedding_dimensions FROM users WHERE user_id = ${userId}`,
    (rows) => rows[0]
  )

  const target = (space: VectorSpace) =>
    Effect.map(spaceOf, (user): Target => ({
      staged: user?.embedding_model !== null && user?.embedding_model !== undefined &&
        (user.embedding_model !== space.model || user.embedding_dimensions !== space.dimensions)
    }))

  /** The rows of a table, aliased `r`, with text that lack a vector of the space where it goes. */
  const lacking = (table: Table, space: VectorSpace, where: Target) =>
    where.staged
      ? sql`r.user_id = ${userId} AND r.content <> '' AND NOT EXISTS (SELECT 1 FROM ${sql(stagedTable(table))} s
          WHERE s.user_id = r.user_id AND s.seq = r.seq AND s.model = ${space.model} AND s.dimensions = ${space.dimensions})`
      : sql`r.user_id = ${userId} AND r.content <> '' AND r.embedding IS NULL`

  const remaining = (space: VectorSpace, where: Target) =>
    Effect.map(
      Effect.forEach(TABLES, (table) => sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM ${sql(table)} r WHERE ${lacking(table, space, where)}`),
      (counts) => counts.reduce((sum, rows) => sum + (rows[0]?.n ?? 0), 0)
    )

  const backlog = (space: VectorSpace, limit: number) =>
    Effect.gen(function*() {
      const where = yield* target(space)
      const rows: Array<RowToEmbed> = []
      for (const table of TABLES) {
        if (rows.length >= limit) break
        const found = yield* sql<{ readonly seq: number; readonly content: string }>`
          SELECT r.seq, r.content FROM ${sql(table)} r WHERE ${lacking(table, space, where)} ORDER BY r.seq LIMIT ${limit - rows.length}`
        rows.push(...found.map((row) => ({ index: indexOf(table), seq: Number(row.seq), content: row.content })))
      }
      return rows
    })

  /** The staged vectors replace the rows' vectors, and the user's space is recorded; the counters make every replica load its bits again. */
  const swap = (space: VectorSpace) =>
    Effect.gen(function*() {
      for (const table of TABLES) {
        const staged = sql(stagedTable(table))
        const [before] = yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM ${sql(table)} WHERE user_id = ${userId} AND embedding IS NOT NULL`
        yield* sql`UPDATE ${sql(table)} r SET embedding = NULL WHERE r.user_id = ${userId} AND r.embedding IS NOT NULL
                   AND NOT EXISTS (SELECT 1 FROM ${staged} s WHERE s.user_id = r.user_id AND s.seq = r.seq)`
        yield* sql`UPDATE ${sql(table)} r SET embedding = s.embedding FROM ${staged} s WHERE r.user_id = ${userId} AND s.user_id = r.user_id AND s.seq = r.seq`
        const [after] = yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM ${sql(table)} WHERE user_id = ${userId} AND embedding IS NOT NULL`
        yield* sql`DELETE FROM ${staged} WHERE user_id = ${userId}`
        yield* sql`UPDATE users SET ${sql.literal(`${table}_vectors_removed = ${table}_vectors_removed`)} + ${before?.n ?? 0},
                   ${sql.literal(`${table}_vectors_added = ${table}_vectors_added`)} + ${after?.n ?? 0} WHERE user_id = ${userId}`
      }
      yield* sql`UPDATE users SET embedding_model = ${space.model}, embedding_dimensions = ${space.dimensions} WHERE user_id = ${userId}`
    })

  const store = (space: VectorSpace, rows: ReadonlyArray<RowToEmbed & { readonly vector: Float32Array }>) =>
    lockedTransaction(sql, userId, (writes) => Effect.gen(function*() {
      if (yield* Effect.map(spaceOf, (user) => user === undefined)) return { stored: 0, remaining: 0, switched: false }
      const where = yield* target(space)
      let stored = 0
      for (const table of TABLES) {
        // A switch to yet another space leaves the vectors staged for an earlier one behind.
        if (where.staged) {
          yield* sql`DELETE FROM ${sql(stagedTable(table))} WHERE user_id = ${userId} AND (model <> ${space.model} OR dimensions <> ${space.dimensions})`
        }
        const wanted = rows.filter((row) => row.index === indexOf(table))
        if (wanted.length === 0) continue
        // Rows whose text changed since they were read, or that got a vector meanwhile, are left alone.
        const lackingNow = new Map((yield* byParts(wanted.map((row) => row.seq), (part) =>
          sql<{ readonly seq: number; readonly content: string }>`SELECT r.seq, r.content FROM ${sql(table)} r
            WHERE ${inList(sql, "r.seq", part)} AND ${lacking(table, space, where)}`)).map((row) => [Number(row.seq), row.content]))
        const kept = wanted.filter((row) => lackingNow.get(row.seq) === row.content)
        if (kept.length === 0) continue
        if (where.staged) {
          for (const part of chunks(kept, STAGED_PER_STATEMENT)) {
            const staged = JSON.stringify(part.map((row) => ({ at_seq: row.seq, vector: vectorText(row.vector) })))
            yield* sql`INSERT INTO ${sql(stagedTable(table))} (user_id, seq, model, dimensions, embedding)
                       SELECT ${userId}, v.at_seq, ${space.model}, ${space.dimensions}, v.vector::vector
                       FROM json_to_recordset(${staged}::json) AS v (at_seq bigint, vector text)
                       ON CONFLICT (user_id, seq) DO UPDATE SET model = excluded.model, dimensions = excluded.dimensions, embedding = excluded.embedding`
          }
        } else {
          yield* writes.storeVectors(table, space.model, kept)
        }
        stored += kept.length
      }
      const after = yield* target(space)
      const left = yield* remaining(space, after)
      if (!after.staged || left > 0) return { stored, remaining: left, switched: false }
      yield* swap(space)
      return { stored, remaining: 0, switched: true }
    }))

  /** How many rows with text lack a vector of the space where it goes. */
  const lackingCount = (space: VectorSpace) => Effect.flatMap(target(space), (where) => remaining(space, where))

  return { backlog, remaining: lackingCount, store } as const
}
