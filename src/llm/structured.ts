import { Effect, type ParseResult, Schema } from "effect"
import { ProviderEmptyContent, type ProviderError, ProviderInvalidOutput } from "../api/errors.js"
import { storableForm } from "../domain/storableText.js"
import type { LlmOperation } from "./LlmUsage.js"
import type { Origin } from "./failures.js"
import { providerJsonSchema } from "./jsonSchema.js"
import { type CallPolicy, withPolicy } from "./retry.js"
import type { ActiveLlm, ChatRequest, ChatTransport, Generated, StructuredRequest } from "./types.js"
import type { CallUsage } from "./usage.js"
import { span } from "../util/span.js"

export type RecordCall = (operation: LlmOperation, call: CallUsage) => Effect.Effect<void>

const emptyContent = (origin: Origin) =>
  new ProviderEmptyContent({ message: `${origin.provider} sent no content`, details: { ...origin } })

const invalidOutput = (origin: Origin, schemaName: string, attempts: number) =>
  new ProviderInvalidOutput({
    message: `${origin.provider}'s reply is not JSON matching the ${schemaName} schema`,
    details: { ...origin, schema: schemaName, attempts }
  })

/** A cut-off reply is cut off again when asked again with the same limit: it is not retried. */
const cutOff = (origin: Origin, schemaName: string, maxTokens: number) =>
  new ProviderInvalidOutput({
    message: `${origin.provider}'s reply reached its limit of ${maxTokens} output tokens before the ${schemaName} document was complete`,
    details: { ...origin, schema: schemaName, max_tokens: maxTokens, retryable: false }
  })

interface Compiled<A> {
  readonly jsonSchema: Record<string, unknown>
  readonly decode: (text: string) => Effect.Effect<A, ParseResult.ParseError>
}

/** Every string of a reply kept as the stores can hold it, whichever field it ends up in. */
const storableStrings = (_key: string, value: unknown) => typeof value === "string" ? storableForm(value) : value

// A task's JSON schema and decoder are built once per schema: building them costs more than a reply takes to decode.
const compiled = new WeakMap<object, Compiled<unknown>>()

const compile = <A, I>(schema: Schema.Schema<A, I, never>): Compiled<A> => {
  const known = compiled.get(schema)
  // Stored under its own schema only, so the decoder's type is that schema's.
  if (known !== undefined) return known as Compiled<A>
  const built: Compiled<A> = {
    jsonSchema: providerJsonSchema(schema),
    decode: Schema.decodeUnknown(Schema.parseJson(schema, { reviver: storableStrings }))
  }
  compiled.set(schema, built)
  return built
}

/**
 * One structured task: the input as JSON in the user message, the reply decoded with the task's
 * schema. Transient failures and malformed replies share one retry budget; every reply is recorded
 * as it arrives.
 */
export const generate = <A, I>(
  transport: ChatTransport,
  policy: CallPolicy,
  record: RecordCall,
  request: StructuredRequest<A, I>
): Effect.Effect<Generated<A>, ProviderError> =>
  Effect.suspend(() => {
    const origin: Origin = { provider: transport.provider, model: transport.model }
    const calls: Array<CallUsage> = []
    const { decode, jsonSchema } = compile(request.schema)
    const chat: ChatRequest = {
      phase: request.phase,
      system: request.system,
      user: JSON.stringify(request.input) ?? "null",
      schemaName: request.schemaName,
      jsonSchema,
      maxTokens: request.maxTokens,
      temperature: request.temperature
    }
    const attempt = transport.chat(chat).pipe(
      Effect.tap((reply) => {
        calls.push(reply.usage)
        return record(request.operation, reply.usage)
      }),
      Effect.flatMap((reply): Effect.Effect<A, ProviderError> => {
        // A reply that stopped at the limit yet decodes is whole: the limit was just enough.
        const unusable = (otherwise: () => ProviderError) =>
          reply.cutOff ? cutOff(origin, request.schemaName, request.maxTokens) : otherwise()
        return reply.text.trim() === ""
          ? Effect.fail(unusable(() => emptyContent(origin)))
          : Effect.mapError(decode(reply.text), () => unusable(() => invalidOutput(origin, request.schemaName, calls.length)))
      })
    )
    return Effect.map(withPolicy(origin, policy, attempt), (value) => ({ value, calls: [...calls] }))
  }).pipe(
    span("Llm.generate", { attributes: { provider: transport.provider, model: transport.model, phase: request.phase } })
  )

/** The configured chat transport as structured generation. */
export const structuredLlm = (transport: ChatTransport, policy: CallPolicy, record: RecordCall): ActiveLlm => ({
  provider: transport.provider,
  model: transport.model,
  generate: (request) => generate(transport, policy, record, request)
})
