import { Effect, Stream } from "effect"
import type { RowBatch, UserRow, UserTable } from "./records.js"

/** Writes the batches in their order through `insert`; the rows written to each table. */
export const writeBatches = <E, E2, R>(batches: Stream.Stream<RowBatch, E>, insert: (batch: RowBatch) => Effect.Effect<void, E2, R>) =>
  Effect.suspend(() => {
    const loaded: Record<UserTable, number> = {
      sessions: 0, turns: 0, spans: 0, facts: 0, fact_sources: 0, entities: 0, fact_entity_roles: 0, edges: 0, events: 0, applied_jobs: 0
    }
    return Stream.runForEach(batches, (batch) =>
      Effect.tap(insert(batch), () => {
        loaded[batch.table] += batch.rows.length
      })).pipe(Effect.as<Readonly<Record<UserTable, number>>>(loaded))
  })

/** The tables whose rows each backend reads as they are stored (no vectors, no columns of its own). */
export type PlainTable = "sessions" | "spans" | "fact_sources" | "fact_entity_roles" | "edges" | "applied_jobs"

/** A page of one of those tables as a batch, read through the backend's `read`. */
export const plainBatch = <E, R>(
  table: PlainTable,
  read: <T extends PlainTable>(table: T) => Effect.Effect<ReadonlyArray<UserRow<T>>, E, R>
): Effect.Effect<RowBatch, E, R> => {
  switch (table) {
    case "sessions":
      return Effect.map(read(table), (rows) => ({ table, rows }))
    case "spans":
      return Effect.map(read(table), (rows) => ({ table, rows }))
    case "fact_sources":
      return Effect.map(read(table), (rows) => ({ table, rows }))
    case "fact_entity_roles":
      return Effect.map(read(table), (rows) => ({ table, rows }))
    case "edges":
      return Effect.map(read(table), (rows) => ({ table, rows }))
    case "applied_jobs":
      return Effect.map(read(table), (rows) => ({ table, rows }))
  }
}
