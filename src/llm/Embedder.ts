import { Effect, Option } from "effect"
import { type ProviderError, ProviderUnavailable } from "../api/errors.js"
import { LlmProvider } from "./LlmProvider.js"
import type { EmbedProviderName } from "../config/AppConfig.js"
import type { EmbedTransport } from "./types.js"
import { textFingerprint } from "../domain/text.js"
import { RecentCache } from "../util/recentCache.js"
import { span } from "../util/span.js"

const QUERY_CACHE = 1024

export interface ActiveEmbedder {
  /** The provider whose embedding endpoint is called: the embedding provider's, or the LLM provider's when none is set apart. */
  readonly provider: EmbedProviderName
  readonly model: string
  /** One vector per text, in order. */
  readonly embed: (texts: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Float32Array>, ProviderUnavailable>
  /** A query's vector, remembered for the next time the same query comes. */
  readonly embedQuery: (text: string) => Effect.Effect<Float32Array, ProviderUnavailable>
  /** Drops every remembered query: a query may hold words that a purge erases. */
  readonly forgetQueries: Effect.Effect<void>
}

/** Writes fail and the vector leg degrades the same way whatever went wrong with the provider. */
const asUnavailable = (error: ProviderError) =>
  error._tag === "ProviderUnavailable" ? error : new ProviderUnavailable({ message: error.message, details: error.details })

const activeEmbedder = (transport: EmbedTransport): ActiveEmbedder => {
  // The transport batches, bounds and retries each request.
  const embed = (texts: ReadonlyArray<string>) =>
    transport.embed(texts).pipe(
      Effect.mapError(asUnavailable),
      span("Embedder.embed", { attributes: { provider: transport.provider, model: transport.model, inputs: texts.length } })
    )

  // By the query's fingerprint, never its text: a query may hold words a purge erases, and a
  // purge on another replica cannot empty this process's cache.
  const cache = new RecentCache<number, Float32Array>(QUERY_CACHE)
  const embedQuery = (text: string) =>
    Effect.suspend(() => {
      const key = textFingerprint(text)
      const cached = cache.get(key)
      if (cached !== undefined) return Effect.succeed(cached)
      return Effect.tap(Effect.map(embed([text]), (vectors) => vectors[0]!), (vector) => Effect.sync(() => cache.set(key, vector)))
    })

  return { provider: transport.provider, model: transport.model, embed, embedQuery, forgetQueries: Effect.sync(() => cache.clear()) }
}

/**
 * Embeddings through the configured embedding provider (`LlmProvider.embeddings`). Without one
 * there is no embedder, and the vector leg says why in `degraded[]`.
 */
export class Embedder extends Effect.Service<Embedder>()("Memory/Embedder", {
  effect: Effect.map(LlmProvider, (provider) => ({
    active: Option.map(provider.embeddings, activeEmbedder),
    reason: provider.embeddingsReason,
    /** The command or step that brings a missing local model. */
    remedy: provider.embeddingsRemedy,
    /** The local model's state and its threads' activity, when the local provider is chosen. */
    local: provider.localEmbedder
  } as const))
}) {}
