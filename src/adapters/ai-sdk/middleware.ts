import type { LanguageModelMiddleware } from "ai"
import type { MemoryClient } from "../core/client.js"
import { contextBlock } from "../core/contextBlock.js"
import { storeInBackground } from "../core/exchange.js"
import { readContext } from "../core/reads.js"
import type { MemoryScope } from "../core/scope.js"
import { memoryCallOptions } from "./callOptions.js"
import { type CallOptions, finalText, lastUserText, watchFinalText, withSystemMessage } from "./prompt.js"

export interface MemoryMiddlewareOptions {
  readonly client: MemoryClient
  /** The user of every call, unless a call names its own (`providerOptions.memory.userId`); without either, memory is off. */
  readonly userId?: string
  readonly scope?: MemoryScope
  /** Token budget of the context block (default 1000). */
  readonly tokenBudget?: number
  /** Store each exchange after the answer (default true). */
  readonly store?: boolean
  /** Session the exchanges are stored under (default: one the service makes per exchange). */
  readonly sessionId?: string
  /** Extract facts from stored exchanges with the service's LLM (default true), or keep them verbatim. */
  readonly infer?: boolean
}

/**
 * Memory for any AI SDK model, through `wrapLanguageModel`: before each call, the context block
 * for the user's last message goes into the prompt as a system message; after a final answer, the
 * exchange is stored in the background. A call opts out with `providerOptions.memory.enabled`
 * false. When the service is down or slow the call goes on without memory after the client's
 * timeout, counted in `client.stats.degraded`.
 */
export const memoryMiddleware = (options: MemoryMiddlewareOptions): LanguageModelMiddleware => {
  const { client } = options
  const userOf = (params: CallOptions) => {
    const call = memoryCallOptions(params)
    return call.enabled === false ? undefined : call.userId ?? options.userId
  }
  const storeExchange = (params: CallOptions, answer: string) => {
    const userId = userOf(params)
    if (userId === undefined || options.store === false) return
    storeInBackground(client, { userId, scope: options.scope }, [
      { role: "user", content: lastUserText(params.prompt) },
      { role: "assistant", content: answer }
    ], { sessionId: memoryCallOptions(params).sessionId ?? options.sessionId, infer: options.infer })
  }
  return {
    specificationVersion: "v4",
    transformParams: async ({ params }) => {
      const userId = userOf(params)
      const query = lastUserText(params.prompt)
      if (userId === undefined || query === "") return params
      const block = await readContext(client, { userId, scope: options.scope }, query, options.tokenBudget ?? 1_000)
      return block === undefined ? params : { ...params, prompt: withSystemMessage(params.prompt, contextBlock(block)) }
    },
    wrapGenerate: async ({ doGenerate, params }) => {
      const result = await doGenerate()
      const answer = finalText(result)
      if (answer !== undefined) storeExchange(params, answer)
      return result
    },
    wrapStream: async ({ doStream, params }) => watchFinalText(await doStream(), (answer) => storeExchange(params, answer))
  }
}
