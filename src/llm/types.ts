import type { Effect, Schema } from "effect"
import type { ProviderError } from "../api/errors.js"
import type { EmbedProviderName, LlmProviderName } from "../config/AppConfig.js"
import type { LlmOperation } from "./LlmUsage.js"
import type { CallUsage } from "./usage.js"

/** One chat call in a provider's JSON-schema mode: a system text, one user message, a schema for the reply. */
export interface ChatRequest {
  readonly phase: string
  readonly system: string
  readonly user: string
  readonly schemaName: string
  readonly jsonSchema: Record<string, unknown>
  readonly maxTokens: number
  readonly temperature: number
}

export interface ChatReply {
  /** The reply's text (the JSON document); "" when the provider sent no content. */
  readonly text: string
  /** The provider stopped the reply at the output-token limit. */
  readonly cutOff: boolean
  readonly usage: CallUsage
}

/** One provider's wire format for chat. */
export interface ChatTransport {
  readonly provider: LlmProviderName
  readonly model: string
  readonly chat: (request: ChatRequest) => Effect.Effect<ChatReply, ProviderError>
}

/** One provider's wire format for embeddings. */
export interface EmbedTransport {
  readonly provider: EmbedProviderName
  readonly model: string
  /** One vector per text, in order. */
  readonly embed: (texts: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Float32Array>, ProviderError>
}

/** A structured task: its input goes as the user message (JSON), its reply is decoded with `schema`. */
export interface StructuredRequest<A, I> {
  readonly operation: LlmOperation
  readonly phase: string
  readonly system: string
  readonly input: unknown
  readonly schemaName: string
  readonly schema: Schema.Schema<A, I, never>
  readonly maxTokens: number
  readonly temperature: number
}

export interface Generated<A> {
  readonly value: A
  /** Every call made for it, retries included. */
  readonly calls: ReadonlyArray<CallUsage>
}

/** The configured LLM: structured generation with retries, usage recorded per call. */
export interface ActiveLlm {
  readonly provider: LlmProviderName
  readonly model: string
  readonly generate: <A, I>(request: StructuredRequest<A, I>) => Effect.Effect<Generated<A>, ProviderError>
}
