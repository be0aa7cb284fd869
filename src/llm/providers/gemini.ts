import type { HttpClient } from "@effect/platform"
import { Effect, Option, Redacted, Schema } from "effect"
import { type Origin, unreadable } from "../failures.js"
import type { CallPolicy } from "../retry.js"
import { embedInBatches, postJson } from "./http.js"
import type { ChatTransport, EmbedTransport } from "../types.js"
import { span } from "../../util/span.js"

export interface GeminiEndpoint {
  readonly model: string
  readonly baseUrl: string
  readonly apiKey: Redacted.Redacted
}

const EMBED_BATCH = 100

const Count = Schema.optional(Schema.Number)

const Reply = Schema.Struct({
  candidates: Schema.optional(Schema.Array(Schema.Struct({
    content: Schema.optional(Schema.Struct({ parts: Schema.optional(Schema.Array(Schema.Struct({ text: Schema.optional(Schema.String) }))) })),
    finishReason: Schema.optional(Schema.String)
  }))),
  usageMetadata: Schema.optional(Schema.Struct({
    promptTokenCount: Count,
    candidatesTokenCount: Count,
    totalTokenCount: Count,
    cachedContentTokenCount: Count,
    thoughtsTokenCount: Count
  })),
  modelVersion: Schema.optional(Schema.String)
})

const Embeddings = Schema.Struct({ embeddings: Schema.Array(Schema.Struct({ values: Schema.Array(Schema.Number) })) })

const ErrorBody = Schema.Struct({ error: Schema.Struct({ status: Schema.String }) })
const errorStatus = (body: unknown) => Option.getOrUndefined(Option.map(Schema.decodeUnknownOption(ErrorBody)(body), ({ error }) => error.status))

const RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo"
const ErrorDetails = Schema.Struct({
  error: Schema.Struct({ details: Schema.Array(Schema.Struct({ "@type": Schema.String, retryDelay: Schema.optional(Schema.String) })) })
})

/** Google asks for a wait in the error's details (`RetryInfo`, a duration such as "38s"), not in a header. */
const retryDelaySeconds = (body: unknown) =>
  Option.getOrUndefined(Option.flatMap(Schema.decodeUnknownOption(ErrorDetails)(body), ({ error }) => {
    const delay = error.details.find((detail) => detail["@type"] === RETRY_INFO)?.retryDelay
    return Option.fromNullable(delay === undefined ? undefined : /^(\d+(?:\.\d+)?)s$/.exec(delay)?.[1])
  }))

/**
 * Gemini counts thinking against maxOutputTokens, so a model that thinks at will can spend a
 * task's whole limit before its reply. The 2.5 Flash models can be told not to think, which
 * these structured tasks do not need; the others cannot (they refuse a budget of 0).
 */
const thinkingConfig = (model: string) => /^(?:models\/)?gemini-2\.5-flash/.test(model) ? { thinkingConfig: { thinkingBudget: 0 } } : {}

/** The model's id as the path wants it, with or without the `models/` prefix given. */
const modelId = (model: string) => encodeURIComponent(model.replace(/^models\//, ""))

const post = (client: HttpClient.HttpClient, origin: Origin, endpoint: GeminiEndpoint, method: string, body: unknown) =>
  postJson(client, origin, {
    url: `${endpoint.baseUrl}/v1beta/models/${modelId(endpoint.model)}:${method}`,
    headers: { "x-goog-api-key": Redacted.value(endpoint.apiKey), "content-type": "application/json" },
    body,
    errorCode: errorStatus,
    bodyRetryAfter: retryDelaySeconds
  })

export const geminiChat = (client: HttpClient.HttpClient, endpoint: GeminiEndpoint): ChatTransport => {
  const origin: Origin = { provider: "gemini", model: endpoint.model }
  return {
    ...origin,
    chat: (request) =>
      post(client, origin, endpoint, "generateContent", {
        systemInstruction: { parts: [{ text: request.system }] },
        contents: [{ role: "user", parts: [{ text: request.user }] }],
        generationConfig: {
          responseMimeType: "application/json",
          responseJsonSchema: request.jsonSchema,
          maxOutputTokens: request.maxTokens,
          temperature: request.temperature,
          ...thinkingConfig(endpoint.model)
        }
      }).pipe(
        Effect.flatMap((body) => Effect.mapError(Schema.decodeUnknown(Reply)(body), () => unreadable(origin))),
        Effect.map((reply) => {
          const usage = reply.usageMetadata
          const prompt = usage?.promptTokenCount ?? 0
          // Thinking is billed as output.
          const completion = (usage?.candidatesTokenCount ?? 0) + (usage?.thoughtsTokenCount ?? 0)
          return {
            // No candidate, or one without parts (a safety stop), is no content.
            text: (reply.candidates?.[0]?.content?.parts ?? []).map((part) => part.text ?? "").join(""),
            // Thinking counts against the limit: it can leave no room for the reply at all.
            cutOff: reply.candidates?.[0]?.finishReason === "MAX_TOKENS",
            usage: {
              phase: request.phase,
              model: endpoint.model,
              served_model: reply.modelVersion ?? endpoint.model,
              usage_available: usage !== undefined,
              prompt_tokens: prompt,
              completion_tokens: completion,
              total_tokens: usage?.totalTokenCount ?? prompt + completion,
              cached_input_tokens: usage?.cachedContentTokenCount ?? 0,
              cache_creation_input_tokens: 0
            }
          }
        })
      )
  }
}

export const geminiEmbeddings = (
  client: HttpClient.HttpClient,
  endpoint: GeminiEndpoint,
  dimensions: Option.Option<number>,
  policy: CallPolicy
): EmbedTransport => {
  const origin: Origin = { provider: "gemini", model: endpoint.model }
  const model = `models/${endpoint.model.replace(/^models\//, "")}`
  const request = (texts: ReadonlyArray<string>) =>
    post(client, origin, endpoint, "batchEmbedContents", {
      requests: texts.map((text) => ({
        model,
        content: { parts: [{ text }] },
        ...Option.match(dimensions, { onNone: () => ({}), onSome: (n) => ({ outputDimensionality: n }) })
      }))
    }).pipe(
      Effect.flatMap((body) => Effect.mapError(Schema.decodeUnknown(Embeddings)(body), () => unreadable(origin))),
      Effect.map(({ embeddings }) => embeddings.map((embedding) => Float32Array.from(embedding.values))),
      span("LlmProvider.embed", { attributes: { provider: "gemini", model: endpoint.model, inputs: texts.length } })
    )
  return { ...origin, embed: embedInBatches(origin, EMBED_BATCH, policy, request) }
}
