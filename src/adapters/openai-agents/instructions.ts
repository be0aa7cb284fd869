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
 * (both from the run's context). Without a user or query, or when the service is down or slow
 * (after the client's timeout, counted in `client.stats.degraded`), they are the agent's own.
 */
export const memoryInstructions = (options: MemoryInstructionsOptions) =>
  async (runContext: RunContext<MemoryRunContext>): Promise<string> => {
    const subject = subjectOf(runContext)
    const query = runContext.context.query
    if (subject === undefined || query === undefined || query.trim() === "") return options.instructions
    const block = await readContext(options.client, subject, query, options.tokenBudget ?? 1_000)
    return block === undefined ? options.instructions : `${options.instructions}\n\n${contextBlock(block)}`
  }
