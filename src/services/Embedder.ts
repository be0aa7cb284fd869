import { Effect, Option, Redacted } from "effect"
import OpenAI from "openai"
import { ProviderUnavailable } from "../api/errors.js"
import { AppConfig } from "../config/AppConfig.js"
import type { VectorSpace } from "../store/user/vectors.js"

const DEFAULT_MODEL = "text-embedding-3-small"
const BATCH = 64
const QUERY_CACHE = 1024

export interface ActiveEmbedder {
  readonly model: string
  /** One vector per text, in order. */
  readonly embed: (texts: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Float32Array>, ProviderUnavailable>
  /** A query's vector, remembered for the next time the same query comes. */
  readonly embedQuery: (text: string) => Effect.Effect<Float32Array, ProviderUnavailable>
  readonly space: (dimensions: number) => VectorSpace
}

/**
 * Embeddings through an OpenAI-compatible endpoint (SERVICE_LLM_BASE_URL for another than the
 * public one), when the embedding provider resolves to `openai` and a key is set. Otherwise there
 * is no embedder and the vector leg says so in `degraded[]`.
 */
export class Embedder extends Effect.Service<Embedder>()("Memory/Embedder", {
  effect: Effect.gen(function*() {
    const config = yield* AppConfig
    const provider = Option.getOrElse(config.embed.provider, () => config.llm.provider)
    if (provider !== "openai" || Option.isNone(config.llm.apiKey)) {
      const reason = Option.isNone(config.llm.apiKey)
        ? "no embedding provider is configured (SERVICE_LLM_API_KEY is unset)"
        : `this build embeds through OpenAI-compatible endpoints only, not '${provider}'`
      return { active: Option.none<ActiveEmbedder>(), reason } as const
    }
    const client = new OpenAI({
      apiKey: Redacted.value(config.llm.apiKey.value),
      baseURL: Option.getOrUndefined(config.llm.baseUrl) ?? null,
      maxRetries: 2,
      timeout: 30_000
    })
    const model = Option.getOrElse(config.embed.model, () => DEFAULT_MODEL)
    const dimensions = Option.getOrUndefined(config.embed.dimensions)

    const request = (input: ReadonlyArray<string>) =>
      Effect.tryPromise({
        try: (signal) =>
          client.embeddings.create({ model, input: [...input], encoding_format: "float", ...(dimensions === undefined ? {} : { dimensions }) }, { signal }),
        // The provider's message is not passed on: some echo part of the key back.
        catch: (error) =>
          new ProviderUnavailable({
            message: `the embedding provider failed${error instanceof OpenAI.APIError && error.status !== undefined ? ` with status ${error.status}` : ""}`,
            details: { provider: "openai", model }
          })
      }).pipe(
        Effect.map((response) => [...response.data].sort((a, b) => a.index - b.index).map((item) => Float32Array.from(item.embedding))),
        Effect.withSpan("Embedder.request", { attributes: { model, inputs: input.length } })
      )

    const embed = (texts: ReadonlyArray<string>) =>
      Effect.map(
        Effect.forEach(Array.from({ length: Math.ceil(texts.length / BATCH) }, (_, i) => texts.slice(i * BATCH, (i + 1) * BATCH)), request),
        (batches) => batches.flat()
      )

    const cache = new Map<string, Float32Array>()
    const embedQuery = (text: string) =>
      Effect.suspend(() => {
        const cached = cache.get(text)
        if (cached !== undefined) {
          cache.delete(text)
          cache.set(text, cached)
          return Effect.succeed(cached)
        }
        return Effect.tap(Effect.map(request([text]), (vectors) => vectors[0]!), (vector) =>
          Effect.sync(() => {
            cache.set(text, vector)
            if (cache.size > QUERY_CACHE) cache.delete(cache.keys().next().value!)
          }))
      })

    const active: ActiveEmbedder = { model, embed, embedQuery, space: (n) => ({ model, dimensions: n }) }
    return { active: Option.some(active), reason: "" } as const
  })
}) {}
