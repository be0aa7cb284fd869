import { Effect, Stream } from "effect"
import type { RowBatch, UserTable } from "./records.js"

/** Writes the batches in their order through `insert`; the rows written to each table. */
export const insertBatches = <E, E2, R>(batches: Stream.Stream<RowBatch, E>, insert: (batch: RowBatch) => Effect.Effect<void, E2, R>) =>
  Effect.suspend(() => {
    const loaded: Record<UserTable, number> = {
      sessions: 0, turns: 0, spans: 0, facts: 0, fact_sources: 0, entities: 0, fact_entity_roles: 0, edges: 0, events: 0, applied_jobs: 0
    }
    return Stream.runForEach(batches, (batch) =>
      Effect.tap(insert(batch), () => {
        loaded[batch.table] += batch.rows.length
      })).pipe(Effect.as<Readonly<Record<UserTable, number>>>(loaded))
  })
