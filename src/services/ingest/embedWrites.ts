import { Effect, Option } from "effect"
import type { SqlClient } from "@effect/sql"
import { VectorQueries, type VectorIndex } from "../../storage/sqlite/user/vectors.js"
import type { ActiveEmbedder } from "../../llm/Embedder.js"

/** Vectors for texts about to be written, when there is an embedder; computed before the write's transaction. */
export const embedForWrite = (embedder: Option.Option<ActiveEmbedder>, texts: ReadonlyArray<string>) =>
  Option.match(embedder, {
    onNone: () => Effect.succeed(Option.none<ReadonlyArray<Float32Array>>()),
    onSome: (active) => Effect.map(active.embed(texts), (vectors) => Option.some(vectors))
  })

/**
 * Stores the vectors of rows just written, inside the write's transaction. A store whose vectors
 * are of another model or dimension keeps them apart: the rows are written without vectors and the
 * vector leg reports the mismatch until maintenance re-embeds.
 */
export const storeVectors = (
  sql: SqlClient.SqlClient,
  embedder: Option.Option<ActiveEmbedder>,
  index: VectorIndex,
  seqs: ReadonlyArray<number>,
  vectors: Option.Option<ReadonlyArray<Float32Array>>
) =>
  Effect.gen(function*() {
    if (Option.isNone(embedder) || Option.isNone(vectors) || vectors.value.length === 0) return
    const rows = seqs.map((seq, i) => ({ seq, vector: vectors.value[i]! }))
    const stored = yield* VectorQueries(sql).insert(index, embedder.value.space(vectors.value[0]!.length), rows)
    if (!stored) yield* Effect.logWarning("vectors not stored: the store holds another embedding model or dimension")
  })
