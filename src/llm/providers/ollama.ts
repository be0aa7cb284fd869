import type { HttpClient } from "@effect/platform"
import { Effect, Option, Redacted, Schema } from "effect"
import { type Origin, unreadable } from "../failures.js"
import type { CallPolicy } from "../retry.js"
import { embedInBatches, postJson } from "./http.js"
import type { ChatTransport, EmbedTransport } from "../types.js"
import { span } from "../../util/span.js"

export interface OllamaEndpoint {
  readonly model: string
  readonly baseUrl: string
  /** Only for an Ollama behind an authenticating proxy. */
  readonly apiKey: Option.Option<Redacted.Redacted>
}

const EMBED_BATCH = 64

const Reply = Schema.Struct({
  model: Schema.String,
  message: Schema.optional(Schema.Struct({ content: Schema.optional(Schema.String) })),
  done_reason: Schema.optional(Schema.String),
  prompt_eval_count: Schema.optional(Schema.Number),
  eval_count: Schema.optional(Schema.Number)
})

const Embeddings = Schema.Struct({ embeddings: Schema.Array(Schema.Array(Schema.Number)) })

/** Ollama's errors are a bare message (`{ error: "..." }`): there is no code to pass on. */
const noCode = () => undefined

const post = (client: HttpClient.HttpClient, origin: Origin, endpoint: OllamaEndpoint, path: string, body: unknown) =>
  postJson(client, origin, {
    url: `${endpoint.baseUrl}${path}`,
    headers: {
      "content-type": "application/json",
      ...Option.match(endpoint.apiKey, { onNone: () => ({}), onSome: (key) => ({ authorization: `Bearer ${Redacted.value(key)}` }) })
    },
    body,
    errorCode: noCode
  })

export const ollamaChat = (client: HttpClient.HttpClient, endpoint: OllamaEndpoint): ChatTransport => {
  const origin: Origin = { provider: "ollama", model: endpoint.model }
  return {
    ...origin,
    chat: (request) =>
      post(client, origin, endpoint, "/api/chat", {
        model: endpoint.model,
        messages: [{ role: "system", content: request.system }, { role: "user", content: request.user }],
        stream: false,
        format: request.jsonSchema,
        options: { temperature: request.temperature, num_predict: request.maxTokens }
      }).pipe(
        Effect.flatMap((body) => Effect.mapError(Schema.decodeUnknown(Reply)(body), () => unreadable(origin))),
        Effect.map((reply) => {
          const prompt = reply.prompt_eval_count ?? 0
          const completion = reply.eval_count ?? 0
          return {
            text: reply.message?.content ?? "",
            cutOff: reply.done_reason === "length",
            usage: {
              phase: request.phase,
              model: endpoint.model,
              served_model: reply.model,
              // Ollama leaves a count out rather than sending zero (a fully cached prompt, say).
              usage_available: reply.prompt_eval_count !== undefined || reply.eval_count !== undefined,
              prompt_tokens: prompt,
              completion_tokens: completion,
              total_tokens: prompt + completion,
              cached_input_tokens: 0,
              cache_creation_input_tokens: 0
            }
          }
        })
      )
  }
}

export const ollamaEmbeddings = (
  client: HttpClient.HttpClient,
  endpoint: OllamaEndpoint,
  dimensions: Option.Option<number>,
  policy: CallPolicy
): EmbedTransport => {
  const origin: Origin = { provider: "ollama", model: endpoint.model }
  const request = (texts: ReadonlyArray<string>) =>
    post(client, origin, endpoint, "/api/embed", {
      model: endpoint.model,
      input: texts,
      ...Option.match(dimensions, { onNone: () => ({}), onSome: (n) => ({ dimensions: n }) })
    }).pipe(
      Effect.flatMap((body) => Effect.mapError(Schema.decodeUnknown(Embeddings)(body), () => unreadable(origin))),
      Effect.map(({ embeddings }) => embeddings.map((values) => Float32Array.from(values))),
      span("LlmProvider.embed", { attributes: { provider: "ollama", model: endpoint.model, inputs: texts.length } })
    )
  return { ...origin, embed: embedInBatches(origin, EMBED_BATCH, policy, request) }
}
