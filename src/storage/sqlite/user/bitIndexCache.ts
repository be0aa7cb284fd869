import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { BitIndex } from "../../vectors/bitIndex.js"

export type VectorIndex = "fact" | "turn"

export const exactTable = (index: VectorIndex) => `${index}_vector_data`
export const bitTable = (index: VectorIndex) => `${index}_vectors`

/**
 * Every write to an index's vectors counts itself in store_meta, in the write's transaction, so
 * a reader tells from two committed numbers whether its in-memory copy is current, with no scan.
 */
const counterKey = (index: VectorIndex, change: "inserted" | "removed") => `${index}_vectors_${change}`

export const countChange = (sql: SqlClient.SqlClient, index: VectorIndex, change: "inserted" | "removed", rows: number) =>
  sql`INSERT INTO store_meta (key, value) VALUES (${counterKey(index, change)}, ${String(rows)})
      ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + ${rows}`

interface Counters {
  readonly inserted: number
  readonly removed: number
}

interface Loaded extends Counters {
  readonly index: BitIndex
}

interface Cached {
  readonly lock: Effect.Semaphore
  loaded: Loaded | undefined
}

// Keyed by the store's connection, so a copy lives exactly as long as the open store it mirrors.
const cache = new WeakMap<SqlClient.SqlClient, Map<VectorIndex, Cached>>()

/** The cache entry of one index of one open store, created on first use (synchronously, so only once). */
const cachedEntry = (sql: SqlClient.SqlClient, index: VectorIndex): Cached => {
  let indexes = cache.get(sql)
  if (indexes === undefined) {
    indexes = new Map()
    cache.set(sql, indexes)
  }
  let entry = indexes.get(index)
  if (entry === undefined) {
    entry = { lock: Effect.unsafeMakeSemaphore(1), loaded: undefined }
    indexes.set(index, entry)
  }
  return entry
}

const countersOf = (sql: SqlClient.SqlClient, index: VectorIndex) =>
  Effect.map(
    sql<{ readonly key: string; readonly value: string }>`SELECT key, value FROM store_meta
      WHERE key IN (${counterKey(index, "inserted")}, ${counterKey(index, "removed")})`,
    (rows): Counters => {
      const value = (change: "inserted" | "removed") => Number(rows.find((row) => row.key === counterKey(index, change))?.value ?? 0)
      return { inserted: value("inserted"), removed: value("removed") }
    }
  )

/** Chunk layouts of the sqlite-vec versions whose shadow tables are read directly. */
const KNOWN_LAYOUT = /^v0\.1\./

/** Every vector of a vec0 bit table through vec0's own full scan: a few microseconds a row (300 ms for 100k). */
export const loadByScan = (sql: SqlClient.SqlClient, index: VectorIndex, dimensions: number) =>
  Effect.map(
    sql<{ readonly rowid: number; readonly embedding: Uint8Array }>`SELECT rowid, embedding FROM ${sql.literal(bitTable(index))}`,
    (rows) => {
      const bits = new BitIndex(dimensions)
      for (const row of rows) bits.append(row.rowid, row.embedding)
      return bits
    }
  )

/**
 * Every vector of a vec0 bit table from its chunk tables, one row per 1024 vectors (6 ms for
 * 100k): each chunk holds a validity bitmap, the rowids as 64-bit integers and the vectors.
 */
export const loadFromChunks = (sql: SqlClient.SqlClient, index: VectorIndex, dimensions: number) =>
  Effect.map(
    sql<{ readonly size: number; readonly validity: Uint8Array; readonly rowids: Uint8Array; readonly vectors: Uint8Array }>`
      SELECT c.size, c.validity, c.rowids, v.vectors FROM ${sql.literal(`${bitTable(index)}_chunks`)} c
      JOIN ${sql.literal(`${bitTable(index)}_vector_chunks00`)} v ON v.rowid = c.chunk_id ORDER BY c.chunk_id`,
    (chunks) => {
      const bits = new BitIndex(dimensions)
      const bytesPerVector = dimensions / 8
      for (const chunk of chunks) {
        const rowids = new DataView(chunk.rowids.buffer, chunk.rowids.byteOffset, chunk.rowids.byteLength)
        for (let slot = 0; slot < chunk.size; slot++) {
          if ((chunk.validity[slot >>> 3]! & (1 << (slot & 7))) === 0) continue
          bits.append(Number(rowids.getBigInt64(slot * 8, true)), chunk.vectors.subarray(slot * bytesPerVector, (slot + 1) * bytesPerVector))
        }
      }
      return bits
    }
  )

/** The chunk tables when their layout is one known here (the table records the version that made it), the full scan otherwise. */
const loadAll = (sql: SqlClient.SqlClient, index: VectorIndex, dimensions: number) =>
  Effect.gen(function*() {
    // A table from a version that kept no _info is of an unknown layout, as any other version is.
    const version = yield* sql<{ readonly value: string }>`SELECT value FROM ${sql.literal(`${bitTable(index)}_info`)} WHERE key = 'CREATE_VERSION'`.pipe(
      Effect.orElseSucceed(() => [])
    )
    return yield* (KNOWN_LAYOUT.test(version[0]?.value ?? "") ? loadFromChunks : loadByScan)(sql, index, dimensions)
  })

/** Rows added since the copy was made are read back from the exact vectors, quantized by SQLite. */
const appendNewer = (sql: SqlClient.SqlClient, index: VectorIndex, bits: BitIndex) =>
  Effect.map(
    sql<{ readonly seq: number; readonly bits: Uint8Array }>`SELECT seq, vec_quantize_binary(embedding) AS bits
      FROM ${sql.literal(exactTable(index))} WHERE seq > ${bits.maxSeq} ORDER BY seq`,
    (rows) => {
      for (const row of rows) bits.append(row.seq, row.bits)
      return rows.length
    }
  )

/**
 * The in-memory bit index of a store's vectors, brought up to date with what is committed.
 * Only appends are applied in place, and only when they account for every counted insert (a
 * vector written below the highest seq would not be); anything else, a removal included,
 * reloads the whole index. Must not run inside a write transaction: it would copy rows that a
 * rollback then takes back.
 */
export const currentBitIndex = (sql: SqlClient.SqlClient, index: VectorIndex, dimensions: number) =>
  Effect.gen(function*() {
    const entry = yield* Effect.sync(() => cachedEntry(sql, index))
    return yield* entry.lock.withPermits(1)(Effect.gen(function*() {
      const counters = yield* countersOf(sql, index)
      const loaded = entry.loaded
      if (loaded !== undefined && loaded.index.dimensions === dimensions && loaded.removed === counters.removed) {
        if (loaded.inserted === counters.inserted) return loaded.index
        const added = yield* appendNewer(sql, index, loaded.index)
        if (added === counters.inserted - loaded.inserted) {
          entry.loaded = { ...counters, index: loaded.index }
          return loaded.index
        }
      }
      const fresh = yield* loadAll(sql, index, dimensions)
      entry.loaded = { ...counters, index: fresh }
      return fresh
    }))
  })
