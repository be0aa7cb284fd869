import type { SqlClient } from "@effect/sql"
import { Effect, Either } from "effect"
import type { FactRow, ScopeFilter } from "../../../../domain/records.js"
import type { RetrievalQueries } from "../retrieval.js"
import { VectorQueries } from "../vectors.js"

type Queries = ReturnType<typeof RetrievalQueries>

/**
 * The vector leg: the facts and turns nearest the query's vector, nearest first, or why it
 * cannot run on this store: no query vector, no vectors yet, or vectors of another model.
 */
export const vectorLeg = (
  sql: SqlClient.SqlClient,
  q: Queries,
  options: { readonly vector: Either.Either<Float32Array, string>; readonly scope: ScopeFilter; readonly statuses: ReadonlyArray<string>; readonly limit: number }
) =>
  Effect.gen(function*() {
    const { vector } = options
    if (Either.isLeft(vector)) return Either.left(vector.left)
    const vectors = VectorQueries(sql)
    const space = yield* vectors.space
    if (space === undefined) return Either.left("the vector index is empty")
    if (space.dimensions !== vector.right.length) {
      return Either.left(`the store's vectors have ${space.dimensions} dimensions (${space.model}), the embedder gives ${vector.right.length}; re-embed the store`)
    }
    const [nearestFacts, nearestTurns] = yield* Effect.all([
      vectors.nearest("fact", vector.right, space.dimensions, options.limit),
      vectors.nearest("turn", vector.right, space.dimensions, options.limit)
    ])
    const [facts, turns] = yield* Effect.all([
      q.factsBySeq(nearestFacts.map((row) => row.seq), options.scope, options.statuses),
      q.turnsBySeq(nearestTurns.map((row) => row.seq), options.scope)
    ])
    return Either.right({ facts, turns })
  })

/** For each vector, the nearest current facts, nearest first; none for vectors of another dimension than the store's. */
export const nearestFacts = (
  sql: SqlClient.SqlClient,
  q: Queries,
  options: { readonly vectors: ReadonlyArray<Float32Array>; readonly scope: ScopeFilter; readonly limit: number }
) =>
  Effect.gen(function*() {
    const { vectors } = options
    const vectorQueries = VectorQueries(sql)
    const space = yield* vectorQueries.space
    if (space === undefined || vectors.some((vector) => vector.length !== space.dimensions)) {
      return vectors.map(() => [] as ReadonlyArray<FactRow>)
    }
    const nearest = yield* vectorQueries.nearestEach("fact", vectors, space.dimensions, options.limit)
    const rows = yield* q.factsBySeq([...new Set(nearest.flat().map((row) => row.seq))], options.scope, ["active"])
    const bySeq = new Map(rows.map((row) => [row.seq, row]))
    return nearest.map((neighbours) => neighbours.flatMap((row) => bySeq.get(row.seq) ?? []))
  })
