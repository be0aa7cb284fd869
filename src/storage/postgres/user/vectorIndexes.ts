import type { SqlClient, SqlError, Statement } from "@effect/sql"
import { Effect } from "effect"
import { BitIndex, quantize } from "../../vectors/bitIndex.js"
import { inList, vectorText } from "./rows.js"

export type VectorTable = "facts" | "turns"

/** What a user's row says of their vectors: the space, and what a copy of their bits is checked against. */
export interface VectorState {
  readonly model: string
  readonly dimensions: number
  /** New each time the user's data is begun again (after an erase). */
  readonly generation: string
  readonly added: Readonly<Record<VectorTable, number>>
  readonly removed: Readonly<Record<VectorTable, number>>
}

/** A user's bits as this process copied them, with the counters they matched. */
interface Copy {
  readonly generation: string
  readonly added: number
  readonly removed: number
  readonly index: BitIndex
}

interface Entry {
  readonly lock: Effect.Semaphore
  copy: Copy | undefined
}

/** Copies kept at once (one per user and table), the least recently used dropped first. */
const MAX_COPIES = 256

/** Candidates ranked exactly per neighbour asked for, and at least this many, as on SQLite. */
const CANDIDATES_PER_RESULT = 4
const MIN_CANDIDATES = 100

/** Sign bits as PostgreSQL prints a bit string (`0101…`), in the index's layout: dimension i at bit i % 8 of byte i / 8. */
const bitsFromText = (text: string) => {
  const bytes = new Uint8Array(Math.ceil(text.length / 8))
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 49) bytes[i >>> 3]! |= 1 << (i & 7)
  return bytes
}

/**
 * The vector leg's first stage on PostgreSQL: each process keeps the sign bits of a user's
 * vectors in memory and scans them for candidates, which their exact vectors then rank. An exact
 * scan reads every vector of the user from out-of-line storage (half a second at 100k 512-d
 * facts); the bits are 64 bytes a row, read once, then only the rows written since.
 *
 * A copy is current when the user's counters of vectors added and removed, and their generation,
 * are those it was made at. Rows added since are appended when they account for every counted
 * addition (a user's writes serialize, so they come after the copy's highest seq); anything else,
 * a removal included, loads the whole copy again.
 */
export const makeVectorIndexes = () => {
  const entries = new Map<string, Entry>()

  const entryOf = (key: string) => {
    const known = entries.get(key)
    const entry = known ?? { lock: Effect.unsafeMakeSemaphore(1), copy: undefined }
    entries.delete(key)
    entries.set(key, entry)
    if (known === undefined && entries.size > MAX_COPIES) entries.delete(entries.keys().next().value!)
    return entry
  }

  const bitsAfter = (sql: SqlClient.SqlClient, userId: string, table: VectorTable, after: number) =>
    sql<{ readonly seq: number; readonly bits: string }>`
      SELECT seq, embedding_bits::text AS bits FROM ${sql(table)}
      WHERE user_id = ${userId} AND seq > ${after} AND embedding_bits IS NOT NULL ORDER BY seq`

  const current = (sql: SqlClient.SqlClient, userId: string, table: VectorTable, state: VectorState) => {
    const entry = entryOf(`${table}:${userId}`)
    return entry.lock.withPermits(1)(Effect.gen(function*() {
      const added = state.added[table]
      const removed = state.removed[table]
      const copy = entry.copy
      if (copy !== undefined && copy.generation === state.generation && copy.index.dimensions === state.dimensions && copy.removed === removed) {
        if (copy.added === added) return copy.index
        const newer = yield* bitsAfter(sql, userId, table, copy.index.maxSeq)
        if (newer.length === added - copy.added) {
          for (const row of newer) copy.index.append(row.seq, bitsFromText(row.bits))
          entry.copy = { ...copy, added }
          return copy.index
        }
      }
      const index = new BitIndex(state.dimensions)
      for (const row of yield* bitsAfter(sql, userId, table, 0)) index.append(row.seq, bitsFromText(row.bits))
      entry.copy = { generation: state.generation, added, removed, index }
      return index
    }))
  }

  /**
   * The rows `rows` reads of the `limit` rows of a table nearest the vector by cosine distance,
   * given a statement answering their `seq` and `rank` (the distance; ties by seq): candidates
   * from this process's copy of the bits, ranked exactly and read in one statement.
   */
  const nearest = <Row>(
    sql: SqlClient.SqlClient,
    target: { readonly userId: string; readonly table: VectorTable; readonly state: VectorState },
    vector: Float32Array,
    limit: number,
    rows: (ranked: Statement.Fragment) => Effect.Effect<ReadonlyArray<Row>, SqlError.SqlError>
  ) =>
    Effect.gen(function*() {
      const { state, table, userId } = target
      const index = yield* current(sql, userId, table, state)
      const candidates = index.nearest(quantize(vector), Math.max(MIN_CANDIDATES, limit * CANDIDATES_PER_RESULT))
      if (candidates.length === 0) return [] as ReadonlyArray<Row>
      return yield* rows(sql`
        SELECT seq, embedding <=> ${vectorText(vector)}::vector AS rank FROM ${sql(table)}
        WHERE user_id = ${userId} AND ${inList(sql, "seq", candidates)} AND embedding IS NOT NULL
        ORDER BY rank, seq LIMIT ${limit}`)
    })

  return { nearest } as const
}

export type VectorIndexes = ReturnType<typeof makeVectorIndexes>
