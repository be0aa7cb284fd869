import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { fromFloat32Bytes } from "../../transfer/float32.js"
import { type RowCounts, USER_COLUMNS, USER_TABLES, type UserRow, type UserSnapshot, type UserTable } from "../../transfer/records.js"
import { insertBatches } from "../user/batches.js"
import { exactTable, type VectorIndex } from "../user/bitIndexCache.js"
import { VectorQueries } from "../user/vectors.js"
import { decodeStoredText } from "./storedText.js"

type Stored<Row> = Omit<Row, "embedding">

/** A user's store read and written whole, as transfer records: ids and seqs (entities' rowids) as stored. */
export const StoreRows = (sql: SqlClient.SqlClient) => {
  const vectors = VectorQueries(sql)
  const select = <Row extends object>(table: UserTable, order: string, columns: ReadonlyArray<string> = USER_COLUMNS[table]) =>
    Effect.flatMap(
      sql<Row>`SELECT ${sql.literal(columns.join(", "))} FROM ${sql.literal(table)} ORDER BY ${sql.literal(order)}`,
      (rows) => asStored(table, order, rows)
    )

  /**
   * The rows with their text as stored: when some of it reads with U+FFFD, the table's text is
   * read again as bytes (in the same order), so that a lone surrogate an earlier build wrote comes
   * back as itself, for a migration to name, not as replacements two rows could share.
   */
  const asStored = <Row extends object>(table: UserTable, order: string, rows: ReadonlyArray<Row>) => {
    const textColumns = [...new Set(rows.flatMap((row) => Object.entries(row).flatMap(([column, value]) => typeof value === "string" ? [column] : [])))]
    const replaced = rows.some((row) => Object.values(row).some((value) => typeof value === "string" && value.includes("\ufffd")))
    if (!replaced) return Effect.succeed(rows)
    const asBytes = textColumns.map((column) => `CAST(${column} AS BLOB) AS ${column}`).join(", ")
    return Effect.map(
      sql<Record<string, unknown>>`SELECT ${sql.literal(asBytes)} FROM ${sql.literal(table)} ORDER BY ${sql.literal(order)}`,
      (stored) =>
        rows.map((row, i) => {
          const bytes = stored[i] ?? {}
          return textColumns.reduce((read, column) => {
            const value = bytes[column]
            return value instanceof Uint8Array ? { ...read, [column]: decodeStoredText(value) } : read
          }, row)
        })
    )
  }

  const vectorsOf = (index: VectorIndex, stored: boolean) =>
    stored
      ? Effect.map(
        sql<{ readonly seq: number; readonly embedding: Uint8Array }>`SELECT seq, embedding FROM ${sql.literal(exactTable(index))}`,
        (rows) => new Map(rows.map((row) => [row.seq, fromFloat32Bytes(row.embedding)]))
      )
      : Effect.succeed(new Map<number, Float32Array>())

  const insert = (table: UserTable, rows: ReadonlyArray<Record<string, unknown>>) =>
    Effect.forEach(insertBatches(rows), (batch) => sql`INSERT INTO ${sql.literal(table)} ${sql.insert(batch)}`, { discard: true })

  const withoutVector = <Row extends { readonly embedding: Float32Array | null }>({ embedding: _, ...row }: Row) => row
  const vectorRows = (rows: ReadonlyArray<UserRow<"turns"> | UserRow<"facts">>) =>
    rows.flatMap((row) => row.embedding === null ? [] : [{ seq: row.seq, vector: row.embedding }])

  return {
    read: (userId: string) =>
      Effect.gen(function*() {
        const space = yield* vectors.space
        const [turnVectors, factVectors] = [yield* vectorsOf("turn", space !== undefined), yield* vectorsOf("fact", space !== undefined)]
        const entities = yield* select<Omit<UserRow<"entities">, "profile_stale"> & { readonly profile_stale: number }>(
          "entities",
          "rowid",
          USER_COLUMNS.entities.map((column) => column === "seq" ? "rowid AS seq" : column)
        )
        return {
          userId,
          space: space ?? null,
          createdAt: null,
          tables: {
            sessions: yield* select<UserRow<"sessions">>("sessions", "session_id"),
            turns: (yield* select<Stored<UserRow<"turns">>>("turns", "seq")).map((row) => ({ ...row, embedding: turnVectors.get(row.seq) ?? null })),
            spans: yield* select<UserRow<"spans">>("spans", "span_id"),
            facts: (yield* select<Stored<UserRow<"facts">>>("facts", "seq")).map((row) => ({ ...row, embedding: factVectors.get(row.seq) ?? null })),
            fact_sources: yield* select<UserRow<"fact_sources">>("fact_sources", "fact_id, span_id"),
            entities: entities.map((row) => ({ ...row, profile_stale: row.profile_stale !== 0 })),
            fact_entity_roles: yield* select<UserRow<"fact_entity_roles">>("fact_entity_roles", "fact_id, entity_id, role"),
            edges: yield* select<UserRow<"edges">>("edges", "edge_id"),
            events: yield* select<UserRow<"events">>("events", "seq"),
            applied_jobs: yield* select<UserRow<"applied_jobs">>("applied_jobs", "job_id")
          }
        } satisfies UserSnapshot
      }),

    /** Writes a user's data into an empty store, inside the caller's transaction; the vector space is claimed even with no vectors left. */
    write: ({ space, tables }: UserSnapshot) =>
      Effect.gen(function*() {
        yield* insert("sessions", tables.sessions)
        yield* insert("turns", tables.turns.map(withoutVector))
        yield* insert("spans", tables.spans)
        yield* insert("facts", tables.facts.map(withoutVector))
        yield* insert("fact_sources", tables.fact_sources)
        yield* insert("entities", tables.entities.map(({ profile_stale, seq, ...row }) => ({ rowid: seq, ...row, profile_stale: profile_stale ? 1 : 0 })))
        yield* insert("fact_entity_roles", tables.fact_entity_roles)
        yield* insert("edges", tables.edges)
        yield* insert("events", tables.events)
        yield* insert("applied_jobs", tables.applied_jobs)
        if (space === null) return
        yield* vectors.claim(space)
        yield* vectors.insert("turn", space, vectorRows(tables.turns))
        yield* vectors.insert("fact", space, vectorRows(tables.facts))
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
