import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { VectorIndex } from "./bitIndexCache.js"
import { insertEvents } from "./events.js"
import { addSources, closeFact, insertFacts } from "./factWrites.js"
import { FactQueries } from "./facts.js"
import { appendTurns } from "./turns.js"
import { VectorQueries } from "./vectors.js"
import { planTargets, type SessionWrite, type SessionWritten, settleSession } from "../../sessionWrite.js"

/**
 * Stores the vectors of rows just written. A store whose vectors are of another model or
 * dimension keeps them apart: the rows are written without vectors and the vector leg reports
 * the mismatch until maintenance re-embeds.
 */
const storeVectors = (
  sql: SqlClient.SqlClient,
  model: string | undefined,
  index: VectorIndex,
  rows: ReadonlyArray<{ readonly seq: number; readonly vector: Float32Array }>
) =>
  Effect.gen(function*() {
    if (model === undefined || rows.length === 0) return
    const stored = yield* VectorQueries(sql).insert(index, { model, dimensions: rows[0]!.vector.length }, rows)
    if (!stored) yield* Effect.logWarning("vectors not stored: the store holds another embedding model or dimension")
  })

/**
 * Writes a session inside the caller's transaction: its turns and spans, then its settled
 * plans, each change with its audit event, one statement per table for the session.
 */
export const writeSession = (sql: SqlClient.SqlClient, write: SessionWrite, now: string, epochSeconds: number) =>
  Effect.gen(function*() {
    const { firstPosition, seqs, written } = yield* appendTurns(sql, { ...write, now })
    const turnVectors = write.turnVectors ?? []
    yield* storeVectors(sql, write.embeddingModel, "turn", turnVectors.map((vector, i) => ({ seq: seqs[i]!, vector })))
    const targets = yield* FactQueries(sql).findMany(planTargets(write))
    const settled = settleSession(write, { firstPosition, targets: new Map(targets.map((row) => [row.fact_id, row])), now, epochSeconds })
    const factSeqs = yield* insertFacts(sql, settled.added.map(({ fact }) => fact), now, epochSeconds)
    for (const { factId, spanIds } of settled.merges) yield* addSources(sql, factId, spanIds, now)
    for (const { old, replacement } of settled.closes) yield* closeFact(sql, old, replacement)
    yield* insertEvents(sql, settled.events, write.audit, now)
    const factVectors = settled.added.flatMap(({ vector }, i) => vector === undefined ? [] : [{ seq: factSeqs[i]!, vector }])
    yield* storeVectors(sql, write.embeddingModel, "fact", factVectors)
    return { turnsWritten: written, facts: settled.facts } satisfies SessionWritten
  })
