import type { RunContext } from "@openai/agents"
import type { MemoryScope } from "../core/scope.js"

/**
 * What a run tells the memory helpers, as its context (`run(agent, input, { context })`): whose
 * run it is, and what the context block should be about (usually the user's message).
 */
export interface MemoryRunContext {
  readonly userId: string
  readonly query?: string
  readonly scope?: MemoryScope
}

/** The run's memory subject, when its context names a user. */
export const subjectOf = (runContext: RunContext<MemoryRunContext> | undefined) => {
  const context = runContext?.context
  return context === undefined || typeof context.userId !== "string" || context.userId === ""
    ? undefined
    : { userId: context.userId, scope: context.scope }
}
