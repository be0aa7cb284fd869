import type { SqlClient, SqlError } from "@effect/sql"
import { Effect } from "effect"
import { fromFloat32Bytes } from "../../transfer/float32.js"
import type { VectorSpace } from "../../../domain/records.js"
import { type RowBatch, type RowCounts, type RowPage, snapshotBatches, USER_COLUMNS, USER_ORDER, USER_TABLES, type UserRow, type UserSnapshot, type UserTable } from "../../transfer/records.js"
import { inBatches, insertBatches } from "../user/batches.js"
import { type PlainTable, plainBatch } from "../../transfer/batches.js"
import { exactTable, type VectorIndex } from "../user/bitIndexCache.js"
import { VectorQueries } from "../user/vectors.js"
import { decodeStoredText } from "./storedText.js"

type Stored<Row> = Omit<Row, "embedding">

/** The store's columns of a table, entities' seq being their rowid. */
const storedColumn = (table: UserTable, column: string) => table === "entities" && column === "seq" ? "rowid" : column

/** A user's store read and written whole or page by page, as transfer records: ids and seqs (entities' rowids) as stored. */
export const StoreRows = (sql: SqlClient.SqlClient) => {
  const vectors = VectorQueries(sql)
  /**
   * A table's rows (a page of them when asked), with their text as stored: when some of it reads
   * with U+FFFD, the same rows' text is read again as bytes, so that a lone surrogate an earlier
   * build wrote comes back as itself, for a migration to name, not as replacements two rows could
   * share.
   */
  const select = <Row extends object>(table: UserTable, page?: RowPage, columns: ReadonlyArray<string> = USER_COLUMNS[table]) => {
    const order = USER_ORDER[table].map((column) => storedColumn(table, column)).join(", ")
    const selected = columns.map((column) => column === "seq" && table === "entities" ? "rowid AS seq" : column).join(", ")
    const after = page?.after == null ? sql`` : sql`WHERE (${sql.literal(order)}) > ${sql.in(page.after)}`
    const limit = page === undefined ? sql`` : sql`LIMIT ${page.limit}`
    const rowsOf = <R extends object>(what: string) => sql<R>`SELECT ${sql.literal(what)} FROM ${sql.literal(table)} ${after} ORDER BY ${sql.literal(order)} ${limit}`
    return Effect.flatMap(rowsOf<Row>(selected), (rows) => asStored(rows, (asBytes) => rowsOf<Record<string, unknown>>(asBytes)))
  }

  const asStored = <Row extends object>(
    rows: ReadonlyArray<Row>,
    reread: (asBytes: string) => Effect.Effect<ReadonlyArray<Record<string, unknown>>, SqlError.SqlError>
  ) => {
    const replaced = rows.some((row) => Object.values(row).some((value) => typeof value === "string" && value.includes("\ufffd")))
    if (!replaced) return Effect.succeed(rows)
    const textColumns = [...new Set(rows.flatMap((row) => Object.entries(row).flatMap(([column, value]) => typeof value === "string" ? [column] : [])))]
    return Effect.map(reread(textColumns.map((column) => `CAST(${column} AS BLOB) AS ${column}`).join(", ")), (stored) =>
      rows.map((row, i) => {
        const bytes = stored[i] ?? {}
        return textColumns.reduce((read, column) => {
          const value = bytes[column]
          return value instanceof Uint8Array ? { ...read, [column]: decodeStoredText(value) } : read
        }, row)
      }))
  }

  /** The vectors of some rows of an index, by seq. */
  const vectorsOfRows = (index: VectorIndex, seqs: ReadonlyArray<number>) =>
    Effect.map(
      inBatches(seqs, (batch) =>
        sql<{ readonly seq: number; readonly embedding: Uint8Array }>`SELECT seq, embedding FROM ${sql.literal(exactTable(index))} WHERE seq IN ${sql.in(batch)}`),
      (rows) => new Map(rows.map((row) => [row.seq, fromFloat32Bytes(row.embedding)]))
    )

  const insert = (table: UserTable, rows: ReadonlyArray<Record<string, unknown>>) =>
    Effect.forEach(insertBatches(rows), (batch) => sql`INSERT INTO ${sql.literal(table)} ${sql.insert(batch)}`, { discard: true })

  const withoutVector = <Row extends { readonly embedding: Float32Array | null }>({ embedding: _, ...row }: Row) => row
  const vectorRows = (rows: ReadonlyArray<UserRow<"turns"> | UserRow<"facts">>) =>
    rows.flatMap((row) => row.embedding === null ? [] : [{ seq: row.seq, vector: row.embedding }])

  /** Rows inserted as they are; turns' and facts' vectors into the space, which the store holds already. */
  const insertRows = (batch: RowBatch, space: VectorSpace | null): Effect.Effect<void, SqlError.SqlError> => {
    switch (batch.table) {
      case "turns":
      case "facts": {
        const rows: ReadonlyArray<UserRow<"turns"> | UserRow<"facts">> = batch.rows
        return Effect.zipRight(
          insert(batch.table, rows.map(withoutVector)),
          space === null ? Effect.void : vectors.insert(batch.table === "turns" ? "turn" : "fact", space, vectorRows(rows))
        )
      }
      case "entities":
        return insert("entities", batch.rows.map(({ profile_stale, seq, ...row }) => ({ rowid: seq, ...row, profile_stale: profile_stale ? 1 : 0 })))
      default:
        return insert(batch.table, batch.rows)
    }
  }

  type StoredEntity = Omit<UserRow<"entities">, "profile_stale"> & { readonly profile_stale: number }
  const entityRows = (rows: ReadonlyArray<StoredEntity>) => rows.map((row) => ({ ...row, profile_stale: row.profile_stale !== 0 }))

  /** Rows with their vectors when asked (and the store holds some), else none. */
  const attachVectors = <Row extends { readonly seq: number }>(index: VectorIndex, rows: ReadonlyArray<Row>, wanted: boolean) =>
    Effect.gen(function*() {
      const stored = wanted && (yield* vectors.space) !== undefined
      const found = stored ? yield* vectorsOfRows(index, rows.map((row) => row.seq)) : new Map<number, Float32Array>()
      return rows.map((row) => ({ ...row, embedding: found.get(row.seq) ?? null }))
    })

  /** A page of a table's rows; turns and facts with their vectors when asked (and the store holds some). */
  const page = (table: UserTable, from: RowPage, withVectors: boolean): Effect.Effect<RowBatch, SqlError.SqlError> =>
    Effect.gen(function*() {
      switch (table) {
        case "turns":
          return { table, rows: yield* attachVectors("turn", yield* select<Stored<UserRow<"turns">>>(table, from), withVectors) }
        case "facts":
          return { table, rows: yield* attachVectors("fact", yield* select<Stored<UserRow<"facts">>>(table, from), withVectors) }
        case "entities":
          return { table, rows: entityRows(yield* select<StoredEntity>(table, from)) }
        // Every column, those added after this build's list among them.
        case "events":
          return { table, rows: yield* select<UserRow<typeof table>>(table, from, ["*"]) }
        default:
          return yield* plainBatch(table, <T extends PlainTable>(plain: T) => select<UserRow<T>>(plain, from))
      }
    })

  return {
    page,
    insertRows,
    read: (userId: string) =>
      Effect.gen(function*() {
        const space = yield* vectors.space
        return {
          userId,
          space: space ?? null,
          createdAt: null,
          tables: {
            sessions: yield* select<UserRow<"sessions">>("sessions"),
            turns: yield* attachVectors("turn", yield* select<Stored<UserRow<"turns">>>("turns"), true),
            spans: yield* select<UserRow<"spans">>("spans"),
            facts: yield* attachVectors("fact", yield* select<Stored<UserRow<"facts">>>("facts"), true),
            fact_sources: yield* select<UserRow<"fact_sources">>("fact_sources"),
            entities: entityRows(yield* select<StoredEntity>("entities")),
            fact_entity_roles: yield* select<UserRow<"fact_entity_roles">>("fact_entity_roles"),
            edges: yield* select<UserRow<"edges">>("edges"),
            events: yield* select<UserRow<"events">>("events"),
            applied_jobs: yield* select<UserRow<"applied_jobs">>("applied_jobs")
          }
        } satisfies UserSnapshot
      }),

    /** Writes a user's data into an empty store, inside the caller's transaction; the vector space is claimed even with no vectors left. */
    write: ({ space, tables }: UserSnapshot) =>
      Effect.gen(function*() {
        if (space !== null) yield* vectors.claim(space)
        yield* Effect.forEach(snapshotBatches(tables), (batch) => insertRows(batch, space), { discard: true })
      }),

    count: Effect.gen(function*() {
      const counts: Record<string, number> = {}
      const count = (table: string) => Effect.map(sql<{ readonly n: number }>`SELECT count(*) AS n FROM ${sql.literal(table)}`, (rows) => rows[0]?.n ?? 0)
      for (const table of USER_TABLES) counts[table] = yield* count(table)
      const stored = (yield* vectors.space) !== undefined
      for (const index of ["fact", "turn"] as const) counts[`${index}_vectors`] = stored ? yield* count(exactTable(index)) : 0
      return counts satisfies RowCounts
    })
  }
}
