import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export type VectorIndex = "fact" | "turn"

const table = (index: VectorIndex) => (index === "fact" ? "fact_vectors" : "turn_vectors")

/** The embedding model and dimension of a store's vectors; none before its first vector. */
export interface VectorSpace {
  readonly model: string
  readonly dimensions: number
}

const asBytes = (vector: Float32Array) => new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength)

/** SQL over a store's vec0 tables (sqlite-vec is loaded into every store connection). */
export const VectorQueries = (sql: SqlClient.SqlClient) => {
  const space = Effect.map(
    sql<{ readonly key: string; readonly value: string }>`SELECT key, value FROM store_meta WHERE key IN ('embedding_model', 'embedding_dimensions')`,
    (rows): VectorSpace | undefined => {
      const model = rows.find((row) => row.key === "embedding_model")?.value
      const dimensions = Number(rows.find((row) => row.key === "embedding_dimensions")?.value)
      return model === undefined || !Number.isInteger(dimensions) ? undefined : { model, dimensions }
    }
  )

  /** Records the store's vector space and creates its tables: done once, with the first vectors. */
  const claim = (wanted: VectorSpace) =>
    Effect.gen(function*() {
      yield* sql`INSERT INTO store_meta (key, value) VALUES ('embedding_model', ${wanted.model}), ('embedding_dimensions', ${String(wanted.dimensions)})`
      for (const index of ["fact", "turn"] as const) {
        yield* sql.unsafe(`CREATE VIRTUAL TABLE ${table(index)} USING vec0 (embedding float[${wanted.dimensions}] distance_metric=cosine)`)
      }
    })

  return {
    space,

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
        for (const row of rows) {
          // vec0 refuses rowids bound as REAL, which is how JS numbers arrive: bind a BigInt.
          yield* sql`INSERT INTO ${sql.literal(table(index))} (rowid, embedding) VALUES (${BigInt(row.seq)}, ${asBytes(row.vector)})`
        }
        return true
      }),

    /** The k nearest rows of an index, nearest first. */
    nearest: (index: VectorIndex, vector: Float32Array, k: number) =>
      sql<{ readonly rowid: number; readonly distance: number }>`
        SELECT rowid, distance FROM ${sql.literal(table(index))} WHERE embedding MATCH ${asBytes(vector)} AND k = ${k} ORDER BY distance`,

    /** Removes a row's vector, if the store has vectors at all; how many were removed. */
    remove: (index: VectorIndex, seq: number) =>
      Effect.gen(function*() {
        if ((yield* space) === undefined) return 0
        const before = yield* sql<{ readonly n: number }>`SELECT count(*) AS n FROM ${sql.literal(table(index))} WHERE rowid = ${BigInt(seq)}`
        yield* sql`DELETE FROM ${sql.literal(table(index))} WHERE rowid = ${BigInt(seq)}`
        return before[0]?.n ?? 0
      })
  }
}
