import { Effect } from "effect"

/** Token spend of LLM calls, as providers report it. */
export interface UsageSummary {
  readonly calls: number
  readonly calls_with_usage: number
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly total_tokens: number
  readonly cached_input_tokens: number
  readonly cache_creation_input_tokens: number
}

export type LlmOperation = "ingest" | "answer" | "maintenance"

const ZERO: UsageSummary = {
  calls: 0,
  calls_with_usage: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
  total_tokens: 0,
  cached_input_tokens: 0,
  cache_creation_input_tokens: 0
}

const add = (a: UsageSummary, b: UsageSummary): UsageSummary => ({
  calls: a.calls + b.calls,
  calls_with_usage: a.calls_with_usage + b.calls_with_usage,
  prompt_tokens: a.prompt_tokens + b.prompt_tokens,
  completion_tokens: a.completion_tokens + b.completion_tokens,
  total_tokens: a.total_tokens + b.total_tokens,
  cached_input_tokens: a.cached_input_tokens + b.cached_input_tokens,
  cache_creation_input_tokens: a.cache_creation_input_tokens + b.cache_creation_input_tokens
})

/** Cumulative LLM usage by operation since this process started; operations with none are absent. */
export class LlmUsage extends Effect.Service<LlmUsage>()("Memory/LlmUsage", {
  sync: () => {
    const byOperation = new Map<LlmOperation, UsageSummary>()
    return {
      record: (operation: LlmOperation, usage: UsageSummary) =>
        Effect.sync(() => {
          byOperation.set(operation, add(byOperation.get(operation) ?? ZERO, usage))
        }),
      snapshot: Effect.sync(() => new Map(byOperation))
    } as const
  }
}) {}
