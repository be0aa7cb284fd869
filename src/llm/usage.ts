/** Token counts of one or many LLM calls, as providers report them. */
export interface TokenCounts {
  readonly calls: number
  readonly calls_with_usage: number
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly total_tokens: number
  readonly cached_input_tokens: number
  readonly cache_creation_input_tokens: number
}

/** One LLM call: what was asked of which model, and what it cost. */
export interface CallUsage {
  readonly phase: string
  readonly model: string
  /** The model the provider says answered (it may name a dated version). */
  readonly served_model: string
  /** False when the reply carried no usage block; its counts are then 0. */
  readonly usage_available: boolean
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly total_tokens: number
  readonly cached_input_tokens: number
  readonly cache_creation_input_tokens: number
}

/** Usage of many calls: totals, totals per phase, and the models that served them. */
export interface UsageSummary extends TokenCounts {
  readonly by_phase: Readonly<Record<string, TokenCounts>>
  readonly served_models: ReadonlyArray<string>
}

export const NO_TOKENS: TokenCounts = {
  calls: 0,
  calls_with_usage: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
  total_tokens: 0,
  cached_input_tokens: 0,
  cache_creation_input_tokens: 0
}

export const EMPTY_SUMMARY: UsageSummary = { ...NO_TOKENS, by_phase: {}, served_models: [] }

const addCounts = (a: TokenCounts, b: TokenCounts): TokenCounts => ({
  calls: a.calls + b.calls,
  calls_with_usage: a.calls_with_usage + b.calls_with_usage,
  prompt_tokens: a.prompt_tokens + b.prompt_tokens,
  completion_tokens: a.completion_tokens + b.completion_tokens,
  total_tokens: a.total_tokens + b.total_tokens,
  cached_input_tokens: a.cached_input_tokens + b.cached_input_tokens,
  cache_creation_input_tokens: a.cache_creation_input_tokens + b.cache_creation_input_tokens
})

/** The counts of one call. */
export const callCounts = (call: CallUsage): TokenCounts => ({
  calls: 1,
  calls_with_usage: call.usage_available ? 1 : 0,
  prompt_tokens: call.prompt_tokens,
  completion_tokens: call.completion_tokens,
  total_tokens: call.total_tokens,
  cached_input_tokens: call.cached_input_tokens,
  cache_creation_input_tokens: call.cache_creation_input_tokens
})

/** The only numeric fields of a summary (what Prometheus exposes). */
export const countsOf = (summary: TokenCounts): TokenCounts => addCounts(NO_TOKENS, summary)

/** Adds one call to a summary. */
export const addCall = (summary: UsageSummary, call: CallUsage): UsageSummary => {
  const counts = callCounts(call)
  return {
    ...addCounts(summary, counts),
    by_phase: { ...summary.by_phase, [call.phase]: addCounts(summary.by_phase[call.phase] ?? NO_TOKENS, counts) },
    served_models: summary.served_models.includes(call.served_model) || call.served_model === ""
      ? summary.served_models
      : [...summary.served_models, call.served_model]
  }
}

/** The summary of a list of calls, with each call listed (for one request's usage). */
export const summarizeCalls = (calls: ReadonlyArray<CallUsage>) =>
  calls.length === 0 ? {} : { ...calls.reduce(addCall, EMPTY_SUMMARY), calls_detail: calls }
