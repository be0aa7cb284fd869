import type { SqlClient, SqlError } from "@effect/sql"
import { Effect } from "effect"
import {
  type RowBatch,
  type RowCounts,
  type RowPage,
  SEQ_TABLES,
  snapshotBatches,
  USER_COLUMNS,
  USER_ORDER,
  USER_TABLES,
  type UserRow,
  type UserSnapshot,
  type UserTable
} from "../../transfer/records.js"
import { chunks } from "../../transfer/chunks.js"
import { type PlainTable, plainBatch } from "../../transfer/batches.js"
import { vectorText } from "../user/rows.js"
import { clock, lockedTransaction } from "../user/writes.js"

/** Rows per INSERT of a copy: one JSON parameter each. */
const ROWS_PER_INSERT = 500

/** The column types a copy's rows are read back from JSON with; text otherwise. */
const COLUMN_TYPES: Readonly<Record<string, string>> = {
  seq: "bigint",
  position: "integer",
  start_offset: "integer",
  end_offset: "integer",
  confidence: "double precision",
  profile_stale: "boolean"
}

const columnType = (table: UserTable, column: string) =>
  table === "edges" && column === "created_at" ? "double precision" : COLUMN_TYPES[column] ?? "text"

/** pgvector's binary form (`vector_send`): dimensions, a reserved word, then big-endian float32 values. */
const fromVectorSend = (bytes: Uint8Array) => {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  return Float32Array.from({ length: view.getInt16(0) }, (_, i) => view.getFloat32(4 + 4 * i))
}

type Stored<Row> = Omit<Row, "embedding">
const noVectors = <Row extends object>(rows: ReadonlyArray<Row>) => rows.map((row) => ({ ...row, embedding: null }))

type WithSentVector<Row> = Omit<Row, "embedding"> & { readonly embedding: Uint8Array | null }

/**
 * One user's rows read and written whole, as transfer records: ids and seqs as stored, vectors
 * read in pgvector's binary form so that they come back bit for bit.
 */
export const UserRows = (sql: SqlClient.SqlClient, userId: string) => {
  const select = <Row extends object>(table: UserTable, page?: RowPage, columns: ReadonlyArray<string> = USER_COLUMNS[table]) => {
    const order = USER_ORDER[table].join(", ")
    const after = page?.after == null ? sql`` : sql`AND (${sql.literal(order)}) > ${sql.in(page.after)}`
    const limit = page === undefined ? sql`` : sql`LIMIT ${page.limit}`
    return sql<Row>`SELECT ${sql.literal(columns.join(", "))} FROM ${sql(table)}
             WHERE user_id = ${userId} ${after} ORDER BY ${sql.literal(order)} ${limit}`
  }
  const withVectors = <Row extends { readonly embedding: Uint8Array | null }>(rows: ReadonlyArray<Row>) =>
    rows.map((row) => ({ ...row, embedding: row.embedding === null ? null : fromVectorSend(row.embedding) }))
  const sentVector = (table: "turns" | "facts") => [...USER_COLUMNS[table], "vector_send(embedding) AS embedding"]
  const withoutUser = <Row extends { readonly user_id: string }>({ user_id: _, ...row }: Row) => row

  /** Rows inserted as they are, seqs included (OVERRIDING SYSTEM VALUE), from one JSON array per statement. */
  const insert = (table: UserTable, rows: ReadonlyArray<object>, vectors = false) => {
    const columns = [...USER_COLUMNS[table], ...(vectors ? ["embedding"] : [])]
    const selected = columns.map((column) => column === "embedding" ? "r.embedding::vector" : `r.${column}`).join(", ")
    const types = columns.map((column) => `${column} ${columnType(table, column)}`).join(", ")
    return Effect.forEach(chunks(rows, ROWS_PER_INSERT), (batch) =>
      sql`INSERT INTO ${sql(table)} (user_id, ${sql.literal(columns.join(", "))}) OVERRIDING SYSTEM VALUE
          SELECT ${userId}, ${sql.literal(selected)} FROM jsonb_to_recordset(${JSON.stringify(batch)}::jsonb) AS r(${sql.literal(types)})`, { discard: true })
  }
  const asText = <Row extends { readonly embedding: Float32Array | null }>(rows: ReadonlyArray<Row>) =>
    rows.map((row) => ({ ...row, embedding: row.embedding === null ? null : vectorText(row.embedding) }))

  /** Rows inserted as they are, turns and facts with their vectors, inside the caller's transaction. */
  const insertRows = (batch: RowBatch): Effect.Effect<void, SqlError.SqlError> => {
    switch (batch.table) {
      case "turns":
        return insert(batch.table, asText(batch.rows), true)
      case "facts":
        return insert(batch.table, asText(batch.rows), true)
      default:
        return insert(batch.table, batch.rows)
    }
  }

  /** A page of a table's rows, turns and facts with their vectors when asked. */
  const page = (table: UserTable, from: RowPage, vectors: boolean): Effect.Effect<RowBatch, SqlError.SqlError> =>
    Effect.gen(function*() {
      switch (table) {
        case "turns":
          return { table, rows: vectors ? withVectors(yield* select<WithSentVector<UserRow<"turns">>>(table, from, sentVector(table))) : noVectors(yield* select<Stored<UserRow<"turns">>>(table, from)) }
        case "facts":
          return { table, rows: vectors ? withVectors(yield* select<WithSentVector<UserRow<"facts">>>(table, from, sentVector(table))) : noVectors(yield* select<Stored<UserRow<"facts">>>(table, from)) }
        case "entities":
          return { table, rows: yield* select<UserRow<typeof table>>(table, from) }
        // Every column, those added after this build's list among them.
        case "events":
          return { table, rows: (yield* select<UserRow<typeof table> & { readonly user_id: string }>(table, from, ["*"])).map(withoutUser) }
        default:
          return yield* plainBatch(table, <T extends PlainTable>(plain: T) => select<UserRow<T>>(plain, from))
      }
    })

  /** New rows of the copied tables take seqs after every copied one. */
  const advanceSequences = Effect.forEach(SEQ_TABLES, (table) =>
    sql`SELECT setval(s.name::regclass, s.top) FROM (SELECT pg_get_serial_sequence(${table}, 'seq') AS name, (SELECT max(seq) FROM ${sql(table)}) AS top) s
        WHERE s.top IS NOT NULL AND s.top > coalesce(pg_sequence_last_value(s.name::regclass), 0)`, { discard: true })

  /** When a user first written where no backend recorded it: its earliest row. */
  const firstWritten = (snapshot: UserSnapshot) =>
    Effect.map(clock, ({ now }) =>
      [...snapshot.tables.sessions.map((row) => row.created_at), ...snapshot.tables.facts.map((row) => row.created_at), ...snapshot.tables.events.map((row) => row.ts)]
        .reduce((earliest, at) => at < earliest ? at : earliest, now))

  return {
    page,
    insertRows,
    advanceSequences,
    read: Effect.gen(function*() {
      const [user] = yield* sql<{ readonly created_at: string; readonly embedding_model: string | null; readonly embedding_dimensions: number | null }>`
        SELECT created_at, embedding_model, embedding_dimensions FROM users WHERE user_id = ${userId}`
      const tables = {
        sessions: yield* select<UserRow<"sessions">>("sessions"),
        turns: withVectors(yield* select<WithSentVector<UserRow<"turns">>>("turns", undefined, sentVector("turns"))),
        spans: yield* select<UserRow<"spans">>("spans"),
        facts: withVectors(yield* select<WithSentVector<UserRow<"facts">>>("facts", undefined, sentVector("facts"))),
        fact_sources: yield* select<UserRow<"fact_sources">>("fact_sources"),
        entities: yield* select<UserRow<"entities">>("entities"),
        fact_entity_roles: yield* select<UserRow<"fact_entity_roles">>("fact_entity_roles"),
        edges: yield* select<UserRow<"edges">>("edges"),
        events: yield* select<UserRow<"events">>("events"),
        applied_jobs: yield* select<UserRow<"applied_jobs">>("applied_jobs")
      }
      if (user === undefined && USER_TABLES.every((table) => tables[table].length === 0)) return undefined
      const space = user?.embedding_model == null || user.embedding_dimensions === null
        ? null
        : { model: user.embedding_model, dimensions: user.embedding_dimensions }
      return { userId, space, createdAt: user?.created_at ?? null, tables } satisfies UserSnapshot
    }),

    /**
     * Replaces whatever the database holds for the user with the snapshot, in one transaction
     * under the user's write lock; the postings and lexical counters are built from the rows.
     */
    replace: (snapshot: UserSnapshot) =>
      lockedTransaction(sql, userId, (writes) => Effect.gen(function*() {
        yield* writes.eraseUser
        const createdAt = snapshot.createdAt ?? (yield* firstWritten(snapshot))
        yield* sql`INSERT INTO users (user_id, created_at, embedding_model, embedding_dimensions)
                   VALUES (${userId}, ${createdAt}, ${snapshot.space?.model ?? null}, ${snapshot.space?.dimensions ?? null})`
        yield* Effect.forEach(snapshotBatches(snapshot.tables), insertRows, { discard: true })
        yield* writes.reindex
        yield* advanceSequences
      })),

    count: Effect.gen(function*() {
      const counts: Record<string, number> = {}
      const count = (table: UserTable, what = "*") =>
        Effect.map(sql<{ readonly n: number }>`SELECT count(${sql.literal(what)}) AS n FROM ${sql(table)} WHERE user_id = ${userId}`, (rows) => rows[0]?.n ?? 0)
      for (const table of USER_TABLES) counts[table] = yield* count(table)
      counts.fact_vectors = yield* count("facts", "embedding")
      counts.turn_vectors = yield* count("turns", "embedding")
      return counts satisfies RowCounts
    })
  }
}
