import { Effect, Option, Redacted } from "effect"
import type OpenAI from "openai"
import type { ProviderError } from "../../api/errors.js"
import { type Origin, refused, statusFailure, timedOut, unreachable, unreadable } from "../failures.js"
import type { CallPolicy } from "../retry.js"
import { embedInBatches } from "./http.js"
import type { Fetch } from "./nodeFetch.js"
import type { ChatRequest, ChatTransport, EmbedTransport } from "../types.js"
import { lazyModule } from "../../util/lazyModule.js"
import { span } from "../../util/span.js"

export interface OpenAiEndpoint {
  readonly model: string
  readonly baseUrl: string
  readonly apiKey: Redacted.Redacted
}

const EMBED_BATCH = 64

/** The SDK, loaded on the first call: a process that never calls OpenAI does not load it. */
const sdk = lazyModule("openai", () => import("openai"))

type Sdk = typeof OpenAI

interface Client {
  readonly sdk: Sdk
  readonly openai: OpenAI
}

/**
 * The SDK's client, made on the first call and kept. Retries and their timing are ours
 * (structured.ts), so the SDK makes exactly one attempt. A module that cannot load is a broken
 * installation, not the provider's answer: a defect.
 */
const client = (endpoint: OpenAiEndpoint, policy: CallPolicy, fetch: Fetch): Effect.Effect<Client> => {
  let made: Client | undefined
  return sdk.pipe(
    Effect.map(({ default: Sdk }) =>
      made ??= { sdk: Sdk, openai: new Sdk({ apiKey: Redacted.value(endpoint.apiKey), baseURL: endpoint.baseUrl, maxRetries: 0, timeout: policy.timeoutMs, fetch }) }),
    Effect.orDie
  )
}

/** The SDK's errors as ours; the provider's message is not passed on (some echo part of the key). */
const failure = (OpenAI: Sdk, origin: Origin, timeoutMs: number) => (error: unknown): ProviderError => {
  if (error instanceof OpenAI.APIConnectionTimeoutError) return timedOut(origin, timeoutMs)
  if (error instanceof OpenAI.APIConnectionError) return unreachable(origin)
  if (error instanceof OpenAI.APIError && error.status !== undefined) {
    return statusFailure(origin, error.status, { code: error.type ?? error.code ?? undefined, retryAfter: error.headers?.get("retry-after") })
  }
  return refused(origin, "the SDK could not complete the call")
}

/**
 * One embedding as sent: base64 of little-endian float32 values, as asked (a quarter of the JSON
 * and no number parsing), or the plain array a compatible server sends when it ignores the
 * format. Undefined when it is neither, or holds a value that is not a finite number.
 */
export const embeddingVector = (embedding: unknown): Float32Array | undefined => {
  let vector: Float32Array
  if (typeof embedding === "string") {
    const bytes = Buffer.from(embedding, "base64")
    if (bytes.length === 0 || bytes.length % 4 !== 0) return undefined
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length)
    vector = new Float32Array(bytes.length / 4)
    for (let i = 0; i < vector.length; i++) vector[i] = view.getFloat32(i * 4, true)
  } else if (Array.isArray(embedding) && embedding.every((value) => typeof value === "number")) {
    vector = Float32Array.from(embedding)
  } else {
    return undefined
  }
  return vector.every(Number.isFinite) ? vector : undefined
}

/** A JSON-schema name as the API accepts it. */
const schemaName = (name: string) => name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64) || "reply"

/** OpenAI's reasoning models take only their default temperature: a 400 names the parameter. */
const temperatureRefused = (OpenAI: Sdk, error: unknown) => error instanceof OpenAI.BadRequestError && error.param === "temperature"

export const openAiChat = (endpoint: OpenAiEndpoint, policy: CallPolicy, fetch: Fetch): ChatTransport => {
  const sdkClient = client(endpoint, policy, fetch)
  const origin: Origin = { provider: "openai", model: endpoint.model }
  // Learnt from the first refusal, then kept: the model's temperature is its default from then on.
  let sendTemperature = true
  const create = ({ openai }: Client, request: ChatRequest) =>
    Effect.tryPromise({
      try: (signal) =>
        openai.chat.completions.create({
          model: endpoint.model,
          messages: [{ role: "system", content: request.system }, { role: "user", content: request.user }],
          response_format: { type: "json_schema", json_schema: { name: schemaName(request.schemaName), strict: true, schema: request.jsonSchema } },
          max_completion_tokens: request.maxTokens,
          ...(sendTemperature ? { temperature: request.temperature } : {})
        }, { signal }),
      catch: (error) => error
    })
  return {
    ...origin,
    chat: (request) =>
      Effect.flatMap(sdkClient, (made) =>
        create(made, request).pipe(
          Effect.catchIf((error) => sendTemperature && temperatureRefused(made.sdk, error), () => {
            sendTemperature = false
            return create(made, request)
          }),
          Effect.mapError(failure(made.sdk, origin, policy.timeoutMs))
        )).pipe(
        Effect.map((response) => {
          const choice = response.choices[0]
          const message = choice?.message
          // A compatible server may send `usage: null`: that is no usage, not zero tokens.
          const usage = response.usage ?? undefined
          // A refusal is not the requested document: it counts as no content.
          const text = message === undefined || (message.refusal ?? "") !== "" ? "" : (message.content ?? "")
          return {
            text,
            cutOff: choice?.finish_reason === "length",
            usage: {
              phase: request.phase,
              model: endpoint.model,
              served_model: response.model,
              usage_available: usage !== undefined,
              prompt_tokens: usage?.prompt_tokens ?? 0,
              completion_tokens: usage?.completion_tokens ?? 0,
              total_tokens: usage?.total_tokens ?? 0,
              cached_input_tokens: usage?.prompt_tokens_details?.cached_tokens ?? 0,
              cache_creation_input_tokens: 0
            }
          }
        })
      )
  }
}

export const openAiEmbeddings = (endpoint: OpenAiEndpoint, dimensions: Option.Option<number>, policy: CallPolicy, fetch: Fetch): EmbedTransport => {
  const sdkClient = client(endpoint, policy, fetch)
  const origin: Origin = { provider: "openai", model: endpoint.model }
  const request = (input: ReadonlyArray<string>) =>
    Effect.flatMap(sdkClient, ({ sdk, openai }) =>
      Effect.tryPromise({
        try: (signal) =>
          openai.embeddings.create({
            model: endpoint.model,
            input: [...input],
            encoding_format: "base64",
            ...Option.match(dimensions, { onNone: () => ({}), onSome: (n) => ({ dimensions: n }) })
          }, { signal }),
        catch: failure(sdk, origin, policy.timeoutMs)
      })).pipe(
      Effect.flatMap((response) => {
        const vectors = [...response.data].sort((a, b) => a.index - b.index).map((item) => embeddingVector(item.embedding))
        return vectors.every((vector) => vector !== undefined) ? Effect.succeed(vectors) : Effect.fail(unreadable(origin))
      }),
      span("LlmProvider.embed", { attributes: { provider: "openai", model: endpoint.model, inputs: input.length } })
    )
  return {
    ...origin,
    embed: embedInBatches(origin, EMBED_BATCH, policy, request)
  }
}
