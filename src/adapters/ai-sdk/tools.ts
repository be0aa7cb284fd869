import { tool } from "ai"
import type { MemoryScope } from "../core/scope.js"
import { contextInput, forgetInput, recallInput, rememberInput, TOOL_DESCRIPTIONS } from "../core/toolSchemas.js"
import { type MemoryToolsOptions, toolRunners } from "../core/tools.js"

export interface AiSdkToolsOptions extends MemoryToolsOptions {
  /** The user every call is for: bound here, never taken from the model's arguments. */
  readonly userId: string
  readonly scope?: MemoryScope
}

/** `remember`, `recall`, `context` and `forget` as AI SDK tools; a failure is a typed result the model reads. */
export const memoryTools = (options: AiSdkToolsOptions) => {
  const run = toolRunners(options, { userId: options.userId, scope: options.scope })
  return {
    remember: tool({ description: TOOL_DESCRIPTIONS.remember, inputSchema: rememberInput, execute: run.remember }),
    recall: tool({ description: TOOL_DESCRIPTIONS.recall, inputSchema: recallInput, execute: run.recall }),
    context: tool({ description: TOOL_DESCRIPTIONS.context, inputSchema: contextInput, execute: run.context }),
    forget: tool({ description: TOOL_DESCRIPTIONS.forget, inputSchema: forgetInput, execute: run.forget })
  }
}
