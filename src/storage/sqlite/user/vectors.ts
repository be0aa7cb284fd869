import { SqlClient, type SqlError } from "@effect/sql"
import { Effect, Option } from "effect"
import type { VectorSpace } from "../../../domain/records.js"
import { quantize } from "../../vectors/bitIndex.js"
import { insertBatches } from "./batches.js"
import { bitTable, countChange, currentBitIndex, exactTable, type VectorIndex } from "./bitIndexCache.js"

export type { VectorIndex }


// Each index keeps its exact vectors in a plain table and, when the dimension allows, their
// binary quantization in a vec0 bit table, mirrored in memory per open store (bitIndexCache): a
// Hamming scan of the bits finds candidates many times faster than a float scan, and the exact
// vectors then rank them.
export const hasBitIndex = (dimensions: number) => dimensions % 8 === 0

/** A row of an index and its cosine distance to a query. */
interface Neighbour {
  readonly seq: number
  readonly distance: number
}

/** Parameters a re-rank statement binds at most: each query binds its number, vector, candidates and k. */
const RERANK_PARAMETERS = 10_000

/** Candidates re-ranked exactly per neighbour asked for, and at least this many. */
const CANDIDATES_PER_RESULT = 4
const MIN_CANDIDATES = 100

export const asBytes = (vector: Float32Array) => new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength)

// A store's space is written with its first vectors and changed only by a switch of model (which
// forgets it): once read committed it is kept per open store (keyed by its connection), which saves a statement on every ingest and search.
const committedSpaces = new WeakMap<SqlClient.SqlClient, VectorSpace>()

/** Forgets the space kept for a store, inside the transaction that changes it (which holds the store's connection until it ends). */
export const forgetSpace = (sql: SqlClient.SqlClient) => Effect.sync(() => committedSpaces.delete(sql))

const inTransaction = Effect.map(Effect.serviceOption(SqlClient.TransactionConnection), Option.isSome)

/** SQL over a store's vectors (sqlite-vec is loaded into every store connection). */
export const VectorQueries = (sql: SqlClient.SqlClient) => {
  const readSpace = Effect.map(
    sql<{ readonly key: string; readonly value: string }>`SELECT key, value FROM store_meta WHERE key IN ('embedding_model', 'embedding_dimensions')`,
    (rows): VectorSpace | undefined => {
      const model = rows.find((row) => row.key === "embedding_model")?.value
      const dimensions = Number(rows.find((row) => row.key === "embedding_dimensions")?.value)
      return model === undefined || !Number.isInteger(dimensions) ? undefined : { model, dimensions }
    }
  )
  // Read inside a transaction, the space may be one that transaction claimed and a rollback takes back: not kept then.
  const space: Effect.Effect<VectorSpace | undefined, SqlError.SqlError> = Effect.suspend(() => {
    const known = committedSpaces.get(sql)
    if (known !== undefined) return Effect.succeed(known)
    return Effect.flatMap(readSpace, (read) =>
      read === undefined ? Effect.succeed(read) : Effect.map(inTransaction, (uncommitted) => {
        if (!uncommitted) committedSpaces.set(sql, read)
        return read
      }))
  })

  /** Records the store's vector space and creates its tables: done once, with the first vectors. */
  const claim = (wanted: VectorSpace) =>
    Effect.gen(function*() {
      yield* sql`INSERT INTO store_meta (key, value) VALUES ('embedding_model', ${wanted.model}), ('embedding_dimensions', ${String(wanted.dimensions)})`
      for (const index of ["fact", "turn"] as const) {
        yield* sql.unsafe(`CREATE TABLE ${exactTable(index)} (seq INTEGER PRIMARY KEY, embedding BLOB NOT NULL)`)
        if (hasBitIndex(wanted.dimensions)) {
          yield* sql.unsafe(`CREATE VIRTUAL TABLE ${bitTable(index)} USING vec0 (embedding bit[${wanted.dimensions}])`)
        }
      }
    })

  /** The exact cosine distances of each query's candidates, its k nearest first (ties by seq): one statement per group of queries. */
  const rerank = (index: VectorIndex, queries: ReadonlyArray<Float32Array>, candidates: ReadonlyArray<ReadonlyArray<number>>, k: number) =>
    Effect.gen(function*() {
      const nearest = queries.map((): Array<Neighbour> => [])
      const withCandidates = queries.flatMap((_, query) => (candidates[query]!.length === 0 ? [] : [query]))
      // Folded rather than spread: a session may hold more queries than a call takes arguments.
      const widest = candidates.reduce((most, list) => Math.max(most, list.length), 0)
      const perStatement = Math.max(1, Math.floor(RERANK_PARAMETERS / (widest + 3)))
      for (let start = 0; start < withCandidates.length; start += perStatement) {
        const parts = withCandidates.slice(start, start + perStatement).map((query) =>
          sql`SELECT * FROM (SELECT ${query} AS query, seq, vec_distance_cosine(embedding, ${asBytes(queries[query]!)}) AS distance
              FROM ${sql.literal(exactTable(index))} WHERE seq IN ${sql.in(candidates[query]!)} ORDER BY distance LIMIT ${k})`)
        const rows = yield* sql<Neighbour & { readonly query: number }>`${sql.join(" UNION ALL ", false)(parts)}`
        for (const { distance, query, seq } of rows) nearest[query]!.push({ seq, distance })
      }
      return nearest.map((rows) => rows.sort((a, b) => a.distance - b.distance || a.seq - b.seq))
    })

  /** The k nearest rows of an index by cosine distance for each query vector, nearest first. */
  const nearestEach = (index: VectorIndex, queries: ReadonlyArray<Float32Array>, dimensions: number, k: number) =>
    Effect.gen(function*() {
      if (!hasBitIndex(dimensions)) {
        return yield* Effect.forEach(queries, (vector) =>
          sql<Neighbour>`
            SELECT seq, vec_distance_cosine(embedding, ${asBytes(vector)}) AS distance FROM ${sql.literal(exactTable(index))}
            ORDER BY distance LIMIT ${k}`)
      }
      const wanted = Math.max(MIN_CANDIDATES, k * CANDIDATES_PER_RESULT)
      // Inside a write transaction the store may hold rows a rollback takes back: vec0 answers
      // from what the transaction sees, and the in-memory copy stays a copy of committed rows.
      const candidates = (yield* inTransaction)
        ? yield* Effect.forEach(queries, (vector) =>
          Effect.map(
            sql<{ readonly rowid: number }>`
              SELECT rowid FROM ${sql.literal(bitTable(index))}
              WHERE embedding MATCH vec_quantize_binary(${asBytes(vector)}) AND k = ${wanted}`,
            (rows) => rows.map((row) => row.rowid)
          ))
        : yield* Effect.map(currentBitIndex(sql, index, dimensions), (bits) => queries.map((vector) => bits.nearest(quantize(vector), wanted)))
      return yield* rerank(index, queries, candidates, k)
    })

  return {
    space,
    claim,

    /**
     * Stores vectors by the rowid (seq) of their fact or turn, inside the caller's transaction.
     * Vectors of another model or dimension than the store's are not mixed in: false then.
     */
    insert: (index: VectorIndex, wanted: VectorSpace, rows: ReadonlyArray<{ readonly seq: number; readonly vector: Float32Array }>) =>
      Effect.gen(function*() {
        if (rows.length === 0) return true
        const current = yield* space
        if (current === undefined) yield* claim(wanted)
        else if (current.model !== wanted.model || current.dimensions !== wanted.dimensions) return false
        for (const batch of insertBatches(rows)) {
          yield* sql`INSERT INTO ${sql.literal(exactTable(index))} ${sql.insert(batch.map((row) => ({ seq: row.seq, embedding: asBytes(row.vector) })))}`
          if (hasBitIndex(wanted.dimensions)) {
            // Quantized from the rows just written; their rowids come from SQLite as integers, as vec0 requires.
            yield* sql`INSERT INTO ${sql.literal(bitTable(index))} (rowid, embedding)
                       SELECT seq, vec_quantize_binary(embedding) FROM ${sql.literal(exactTable(index))}
                       WHERE seq IN ${sql.in(batch.map((row) => row.seq))}`
          }
        }
        yield* countChange(sql, index, "inserted", rows.length)
        return true
      }),

    /** The k nearest rows of an index by cosine distance, nearest first. */
    nearest: (index: VectorIndex, vector: Float32Array, dimensions: number, k: number) =>
      Effect.map(nearestEach(index, [vector], dimensions, k), (lists) => lists[0] ?? []),

    nearestEach,

    /** Removes a row's vector, if the store has vectors at all; how many were removed. */
    remove: (index: VectorIndex, seq: number) =>
      Effect.gen(function*() {
        const current = yield* space
        if (current === undefined) return 0
        const before = yield* sql<{ readonly n: number }>`SELECT count(*) AS n FROM ${sql.literal(exactTable(index))} WHERE seq = ${seq}`
        yield* sql`DELETE FROM ${sql.literal(exactTable(index))} WHERE seq = ${seq}`
        if (hasBitIndex(current.dimensions)) yield* sql`DELETE FROM ${sql.literal(bitTable(index))} WHERE rowid = ${BigInt(seq)}`
        const removed = before[0]?.n ?? 0
        if (removed > 0) yield* countChange(sql, index, "removed", removed)
        return removed
      })
  }
}
