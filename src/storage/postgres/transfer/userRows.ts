import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { type RowCounts, SEQ_TABLES, USER_COLUMNS, USER_TABLES, type UserRow, type UserSnapshot, type UserTable } from "../../transfer/records.js"
import { chunks } from "../../transfer/chunks.js"
import { vectorText } from "../user/rows.js"
import { clock, UserWrites } from "../user/writes.js"

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

type WithSentVector<Row> = Omit<Row, "embedding"> & { readonly embedding: Uint8Array | null }

/**
 * One user's rows read and written whole, as transfer records: ids and seqs as stored, vectors
 * read in pgvector's binary form so that they come back bit for bit.
 */
export const UserRows = (sql: SqlClient.SqlClient, userId: string) => {
  const select = <Row extends object>(table: UserTable, order: string, extra: ReadonlyArray<string> = []) =>
    sql<Row>`SELECT ${sql.literal([...USER_COLUMNS[table], ...extra].join(", "))} FROM ${sql(table)}
             WHERE user_id = ${userId} ORDER BY ${sql.literal(order)}`
  const withVectors = <Row extends { readonly embedding: Uint8Array | null }>(rows: ReadonlyArray<Row>) =>
    rows.map((row) => ({ ...row, embedding: row.embedding === null ? null : fromVectorSend(row.embedding) }))
  const sentVector = ["vector_send(embedding) AS embedding"]

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
    read: Effect.gen(function*() {
      const [user] = yield* sql<{ readonly created_at: string; readonly embedding_model: string | null; readonly embedding_dimensions: number | null }>`
        SELECT created_at, embedding_model, embedding_dimensions FROM users WHERE user_id = ${userId}`
      const tables = {
        sessions: yield* select<UserRow<"sessions">>("sessions", "session_id"),
        turns: withVectors(yield* select<WithSentVector<UserRow<"turns">>>("turns", "seq", sentVector)),
        spans: yield* select<UserRow<"spans">>("spans", "span_id"),
        facts: withVectors(yield* select<WithSentVector<UserRow<"facts">>>("facts", "seq", sentVector)),
        fact_sources: yield* select<UserRow<"fact_sources">>("fact_sources", "fact_id, span_id"),
        entities: yield* select<UserRow<"entities">>("entities", "seq"),
        fact_entity_roles: yield* select<UserRow<"fact_entity_roles">>("fact_entity_roles", "fact_id, entity_id, role"),
        edges: yield* select<UserRow<"edges">>("edges", "edge_id"),
        events: yield* select<UserRow<"events">>("events", "seq"),
        applied_jobs: yield* select<UserRow<"applied_jobs">>("applied_jobs", "job_id")
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
      sql.withTransaction(Effect.gen(function*() {
        const writes = UserWrites(sql, userId)
        yield* writes.lock
        yield* writes.eraseUser
        const createdAt = snapshot.createdAt ?? (yield* firstWritten(snapshot))
        yield* sql`INSERT INTO users (user_id, created_at, embedding_model, embedding_dimensions)
                   VALUES (${userId}, ${createdAt}, ${snapshot.space?.model ?? null}, ${snapshot.space?.dimensions ?? null})`
        const { tables } = snapshot
        yield* insert("sessions", tables.sessions)
        yield* insert("turns", asText(tables.turns), true)
        yield* insert("spans", tables.spans)
        yield* insert("facts", asText(tables.facts), true)
        yield* insert("fact_sources", tables.fact_sources)
        yield* insert("entities", tables.entities)
        yield* insert("fact_entity_roles", tables.fact_entity_roles)
        yield* insert("edges", tables.edges)
        yield* insert("events", tables.events)
        yield* insert("applied_jobs", tables.applied_jobs)
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
