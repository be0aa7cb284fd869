import { Effect } from "effect"
import { addCall, type CallUsage, EMPTY_SUMMARY, type UsageSummary } from "./usage.js"

export type LlmOperation = "ingest" | "answer" | "maintenance"

/**
 * Cumulative LLM usage by operation since this process started, added call by call as replies
 * arrive (exact: each call counted once); operations with no calls are absent.
 */
export class LlmUsage extends Effect.Service<LlmUsage>()("Memory/LlmUsage", {
  sync: () => {
    const byOperation = new Map<LlmOperation, UsageSummary>()
    let total = EMPTY_SUMMARY
    return {
      record: (operation: LlmOperation, call: CallUsage) =>
        Effect.sync(() => {
          byOperation.set(operation, addCall(byOperation.get(operation) ?? EMPTY_SUMMARY, call))
          total = addCall(total, call)
        }),
      snapshot: Effect.sync(() => ({ byOperation: new Map(byOperation), total }))
    } as const
  }
}) {}
