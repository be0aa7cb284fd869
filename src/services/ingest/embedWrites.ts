import { Effect, Option } from "effect"
import type { ActiveEmbedder } from "../../llm/Embedder.js"

/** Vectors for texts about to be written, when there is an embedder; computed before the write's transaction. */
export const embedForWrite = (embedder: Option.Option<ActiveEmbedder>, texts: ReadonlyArray<string>) =>
  Option.match(embedder, {
    onNone: () => Effect.succeed(Option.none<ReadonlyArray<Float32Array>>()),
    onSome: (active) => Effect.map(active.embed(texts), (vectors) => Option.some(vectors))
  })

/** The model a write's vectors come from; none without an embedder. */
export const embeddingModel = (embedder: Option.Option<ActiveEmbedder>) => Option.getOrUndefined(Option.map(embedder, (active) => active.model))
