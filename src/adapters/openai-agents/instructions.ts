import type { RunContext } from "@openai/agents"
import type { MemoryClient } from "../core/client.js"
import { contextBlock } from "../core/contextBlock.js"
import { readContext } from "../core/reads.js"
import { type MemoryRunContext, subjectOf } from "./runContext.js"

export interface MemoryInstructionsOptions {
  readonly client: MemoryClient
  /** The agent's own instructions, which the context block follows. */
  readonly instructions: string
  /** Token budget of the context block (default 1000). */
  readonly tokenBudget?: number
}

/**
 * Instructions for an `Agent` that end with the context block for the run's query and user
 * (both from the run's context). The SDK asks for instructions before every model call of a run;
 * the block is read once a run (once a context object and query). Without a user or query, or
 * when the service is down or slow (after the client's timeout, counted in
 * `client.stats.degraded`), they are the agent's own.
 */
export const memoryInstructions = (options: MemoryInstructionsOptions) => {
  const readOnce = new WeakMap<MemoryRunContext, { readonly query: string; readonly block: Promise<string | undefined> }>()
  return async (runContext: RunContext<MemoryRunContext>): Promise<string> => {
    const subject = subjectOf(runContext)
    const query = runContext.context.query
    if (subject === undefined || query === undefined || query.trim() === "") return options.instructions
    let read = readOnce.get(runContext.context)
    if (read === undefined || read.query !== query) {
      read = { query, block: readContext(options.client, subject, query, options.tokenBudget ?? 1_000) }
      readOnce.set(runContext.context, read)
    }
    const block = await read.block
    return block === undefined ? options.instructions : `${options.instructions}\n\n${contextBlock(block)}`
  }
}
