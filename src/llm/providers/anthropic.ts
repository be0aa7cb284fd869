import type { HttpClient } from "@effect/platform"
import { Effect, Option, Redacted, Schema } from "effect"
import { type Origin, unreadable } from "../failures.js"
import { postJson } from "./http.js"
import type { ChatTransport } from "../types.js"

export interface AnthropicEndpoint {
  readonly model: string
  readonly baseUrl: string
  readonly apiKey: Redacted.Redacted
}

const Count = Schema.optional(Schema.NullOr(Schema.Number))

const Reply = Schema.Struct({
  model: Schema.String,
  content: Schema.Array(Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String) })),
  stop_reason: Schema.optional(Schema.NullOr(Schema.String)),
  usage: Schema.optional(Schema.Struct({
    input_tokens: Count,
    output_tokens: Count,
    cache_read_input_tokens: Count,
    cache_creation_input_tokens: Count
  }))
})

const ErrorBody = Schema.Struct({ error: Schema.Struct({ type: Schema.String }) })
const errorType = (body: unknown) => Option.getOrUndefined(Option.map(Schema.decodeUnknownOption(ErrorBody)(body), ({ error }) => error.type))

/** The Messages API, its structured-output mode. Anthropic has no embeddings endpoint. */
export const anthropicChat = (client: HttpClient.HttpClient, endpoint: AnthropicEndpoint): ChatTransport => {
  const origin: Origin = { provider: "anthropic", model: endpoint.model }
  return {
    ...origin,
    chat: (request) =>
      postJson(client, origin, {
        url: `${endpoint.baseUrl}/v1/messages`,
        headers: { "x-api-key": Redacted.value(endpoint.apiKey), "anthropic-version": "2023-06-01", "content-type": "application/json" },
        body: {
          model: endpoint.model,
          max_tokens: request.maxTokens,
          // The Messages API takes 0..1; the service's requests allow up to 2, as OpenAI's and Gemini's do.
          temperature: Math.min(request.temperature, 1),
          system: request.system,
          messages: [{ role: "user", content: request.user }],
          output_config: { format: { type: "json_schema", schema: request.jsonSchema } }
        },
        errorCode: errorType
      }).pipe(
        Effect.flatMap((body) => Effect.mapError(Schema.decodeUnknown(Reply)(body), () => unreadable(origin))),
        Effect.map((reply) => {
          const input = reply.usage?.input_tokens ?? 0
          const cacheRead = reply.usage?.cache_read_input_tokens ?? 0
          const cacheCreation = reply.usage?.cache_creation_input_tokens ?? 0
          const output = reply.usage?.output_tokens ?? 0
          // input_tokens counts only what was neither read from nor written to the cache.
          const prompt = input + cacheRead + cacheCreation
          return {
            text: reply.content.flatMap((block) => block.type === "text" && block.text !== undefined ? [block.text] : []).join(""),
            cutOff: reply.stop_reason === "max_tokens",
            usage: {
              phase: request.phase,
              model: endpoint.model,
              served_model: reply.model,
              usage_available: reply.usage !== undefined,
              prompt_tokens: prompt,
              completion_tokens: output,
              total_tokens: prompt + output,
              cached_input_tokens: cacheRead,
              cache_creation_input_tokens: cacheCreation
            }
          }
        })
      )
  }
}
