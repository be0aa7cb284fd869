import { type RunContext, tool } from "@openai/agents"
import type { Subject } from "../core/reads.js"
import type { MemoryScope } from "../core/scope.js"
import type { ToolError } from "../core/toolResults.js"
import { contextInput, forgetInput, recallInput, rememberInput, TOOL_DESCRIPTIONS } from "../core/toolSchemas.js"
import { type MemoryToolsOptions, type ToolRunners, toolRunners } from "../core/tools.js"
import { type MemoryRunContext, subjectOf } from "./runContext.js"

export interface AgentsToolsOptions extends MemoryToolsOptions {
  /** The user every call is for; without it, each run's context names its user (MemoryRunContext). */
  readonly userId?: string
  readonly scope?: MemoryScope
}

const NO_USER: ToolError = { ok: false, error: { code: "no_user", message: "this run names no user: pass { userId } as the run's context" } }

/**
 * The memory tools for `@openai/agents`. The user is the one bound here or, for an agent shared
 * by many users, the one the run's context names; never one the model passes.
 */
export const memoryTools = (options: AgentsToolsOptions) => {
  const fixed: Subject | undefined = options.userId === undefined ? undefined : { userId: options.userId, scope: options.scope }
  const runnersFor = (runContext: RunContext<MemoryRunContext> | undefined): ToolRunners | undefined => {
    const subject = fixed ?? subjectOf(runContext)
    return subject === undefined ? undefined : toolRunners(options, subject)
  }
  const bound = <I, R>(pick: (runners: ToolRunners) => (input: I) => Promise<R>) =>
    async (input: I, runContext?: RunContext<MemoryRunContext>) => {
      const runners = runnersFor(runContext)
      if (runners === undefined) options.client.note("toolErrors", "a memory tool was called in a run that names no user", NO_USER.error.code)
      return JSON.stringify(runners === undefined ? NO_USER : await pick(runners)(input))
    }
  return [
    tool({ name: "remember", description: TOOL_DESCRIPTIONS.remember, parameters: rememberInput, execute: bound((run) => run.remember) }),
    tool({ name: "recall", description: TOOL_DESCRIPTIONS.recall, parameters: recallInput, execute: bound((run) => run.recall) }),
    tool({ name: "context", description: TOOL_DESCRIPTIONS.context, parameters: contextInput, execute: bound((run) => run.context) }),
    tool({ name: "forget", description: TOOL_DESCRIPTIONS.forget, parameters: forgetInput, execute: bound((run) => run.forget) })
  ]
}
