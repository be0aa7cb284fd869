import { tool } from "@langchain/core/tools"
import type { MemoryScope } from "../core/scope.js"
import { contextInput, forgetInput, recallInput, rememberInput, TOOL_DESCRIPTIONS } from "../core/toolSchemas.js"
import { type MemoryToolsOptions, toolRunners } from "../core/tools.js"

export interface LangChainToolsOptions extends MemoryToolsOptions {
  /** The user every call is for: bound here, never taken from the model's arguments. */
  readonly userId: string
  readonly scope?: MemoryScope
}

/** The memory tools as LangChain structured tools; each answers with its typed result as JSON, an error included. */
export const memoryTools = (options: LangChainToolsOptions) => {
  const run = toolRunners(options, { userId: options.userId, scope: options.scope })
  return [
    tool(async (input) => JSON.stringify(await run.remember(input)), { name: "remember", description: TOOL_DESCRIPTIONS.remember, schema: rememberInput }),
    tool(async (input) => JSON.stringify(await run.recall(input)), { name: "recall", description: TOOL_DESCRIPTIONS.recall, schema: recallInput }),
    tool(async (input) => JSON.stringify(await run.context(input)), { name: "context", description: TOOL_DESCRIPTIONS.context, schema: contextInput }),
    tool(async (input) => JSON.stringify(await run.forget(input)), { name: "forget", description: TOOL_DESCRIPTIONS.forget, schema: forgetInput })
  ]
}
