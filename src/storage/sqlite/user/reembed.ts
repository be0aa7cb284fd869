import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { VectorSpace } from "../../../domain/records.js"
import type { RowToEmbed } from "../../UserStore.js"
import { inBatches, insertBatches } from "./batches.js"
import { bitTable, countChange, exactTable, type VectorIndex } from "./bitIndexCache.js"
import { asBytes, forgetSpace, hasBitIndex, VectorQueries } from "./vectors.js"

const INDEXES = ["fact", "turn"] as const
const rowsOf = (index: VectorIndex) => (index === "fact" ? "facts" : "turns")
const stagedTable = (index: VectorIndex) => `${index}_vectors_staged`

const sameSpace = (a: VectorSpace, b: VectorSpace) => a.model === b.model && a.dimensions === b.dimensions

/**
 * Re-embedding a store toward a vector space. Vectors of the store's own space (or of a store
 * with none yet) go straight into its index; those of another space are staged until every row
 * has one, then replace the index in the transaction that stages the last of them.
 */
export const Reembed = (sql: SqlClient.SqlClient) => {
  const vectors = VectorQueries(sql)

  /** Where vectors of the space go: the index, or staging while the store's vectors are of another space. */
  const target = (space: VectorSpace) =>
    Effect.map(vectors.space, (current) => current === undefined ? { staged: false, indexed: false } : { staged: !sameSpace(current, space), indexed: true })

  /** The rows of an index with text that lack a vector of the space where it goes. */
  const lacking = (index: VectorIndex, space: VectorSpace, where: { readonly staged: boolean; readonly indexed: boolean }) =>
    where.staged
      ? sql`content <> '' AND seq NOT IN (SELECT seq FROM ${sql.literal(stagedTable(index))} WHERE model = ${space.model} AND dimensions = ${space.dimensions})`
      : where.indexed
      ? sql`content <> '' AND seq NOT IN (SELECT seq FROM ${sql.literal(exactTable(index))})`
      : sql`content <> ''`

  const remaining = (space: VectorSpace, where: { readonly staged: boolean; readonly indexed: boolean }) =>
    Effect.map(
      Effect.forEach(INDEXES, (index) =>
        sql<{ readonly n: number }>`SELECT count(*) AS n FROM ${sql.literal(rowsOf(index))} WHERE ${lacking(index, space, where)}`),
      (counts) => counts.reduce((sum, rows) => sum + (rows[0]?.n ?? 0), 0)
    )

  const backlog = (space: VectorSpace, limit: number) =>
    Effect.gen(function*() {
      const where = yield* target(space)
      const rows: Array<RowToEmbed> = []
      for (const index of INDEXES) {
        if (rows.length >= limit) break
        const found = yield* sql<{ readonly seq: number; readonly content: string }>`
          SELECT seq, content FROM ${sql.literal(rowsOf(index))} WHERE ${lacking(index, space, where)} ORDER BY seq LIMIT ${limit - rows.length}`
        rows.push(...found.map((row) => ({ index, ...row })))
      }
      return rows
    })

  /** The staged vectors replace the index: its tables are made again for the space, and the space recorded. */
  const swap = (previous: VectorSpace, space: VectorSpace) =>
    Effect.gen(function*() {
      const dropped = yield* Effect.forEach(INDEXES, (index) =>
        Effect.map(sql<{ readonly n: number }>`SELECT count(*) AS n FROM ${sql.literal(exactTable(index))}`, (rows) => rows[0]?.n ?? 0))
      for (const index of INDEXES) {
        yield* sql.unsafe(`DROP TABLE ${exactTable(index)}`)
        if (hasBitIndex(previous.dimensions)) yield* sql.unsafe(`DROP TABLE ${bitTable(index)}`)
      }
      yield* sql`DELETE FROM store_meta WHERE key IN ('embedding_model', 'embedding_dimensions')`
      yield* forgetSpace(sql)
      yield* vectors.claim(space)
      for (const [i, index] of INDEXES.entries()) {
        yield* sql`INSERT INTO ${sql.literal(exactTable(index))} (seq, embedding) SELECT seq, embedding FROM ${sql.literal(stagedTable(index))}`
        if (hasBitIndex(space.dimensions)) {
          yield* sql`INSERT INTO ${sql.literal(bitTable(index))} (rowid, embedding)
                     SELECT seq, vec_quantize_binary(embedding) FROM ${sql.literal(exactTable(index))}`
        }
        yield* sql`DELETE FROM ${sql.literal(stagedTable(index))}`
        const [added] = yield* sql<{ readonly n: number }>`SELECT count(*) AS n FROM ${sql.literal(exactTable(index))}`
        // Counted as removals and inserts, so every in-memory copy of the bits is loaded again.
        if (dropped[i]! > 0) yield* countChange(sql, index, "removed", dropped[i]!)
        if ((added?.n ?? 0) > 0) yield* countChange(sql, index, "inserted", added?.n ?? 0)
      }
    })

  const store = (space: VectorSpace, rows: ReadonlyArray<RowToEmbed & { readonly vector: Float32Array }>) =>
    sql.withTransaction(Effect.gen(function*() {
      const where = yield* target(space)
      let stored = 0
      if (where.staged) {
        // A switch to yet another space leaves the vectors staged for an earlier one behind.
        for (const index of INDEXES) {
          yield* sql`DELETE FROM ${sql.literal(stagedTable(index))} WHERE model <> ${space.model} OR dimensions <> ${space.dimensions}`
        }
      }
      for (const index of INDEXES) {
        const wanted = rows.filter((row) => row.index === index)
        if (wanted.length === 0) continue
        // Rows whose text changed since they were read, or that got a vector meanwhile, are left alone.
        const lackingNow = new Map((yield* inBatches(wanted.map((row) => row.seq), (batch) =>
          sql<{ readonly seq: number; readonly content: string }>`SELECT seq, content FROM ${sql.literal(rowsOf(index))}
            WHERE seq IN ${sql.in(batch)} AND ${lacking(index, space, where)}`)).map((row) => [row.seq, row.content]))
        const kept = wanted.filter((row) => lackingNow.get(row.seq) === row.content)
        if (kept.length === 0) continue
        if (where.staged) {
          for (const batch of insertBatches(kept)) {
            yield* sql`INSERT OR REPLACE INTO ${sql.literal(stagedTable(index))} ${
              sql.insert(batch.map((row) => ({ seq: row.seq, model: space.model, dimensions: space.dimensions, embedding: asBytes(row.vector) })))
            }`
          }
        } else {
          yield* vectors.insert(index, space, kept)
        }
        stored += kept.length
      }
      const after = yield* target(space)
      const left = yield* remaining(space, after)
      if (!after.staged || left > 0) return { stored, remaining: left, switched: false }
      const previous = yield* vectors.space
      if (previous !== undefined) yield* swap(previous, space)
      return { stored, remaining: 0, switched: true }
    }))

  /** How many rows with text lack a vector of the space where it goes. */
  const lackingCount = (space: VectorSpace) => Effect.flatMap(target(space), (where) => remaining(space, where))

  return { backlog, remaining: lackingCount, store } as const
}
