import type { FACT_KINDS } from "../llm/tasks.js"
import type { FactRow } from "../storage/records.js"

/** An extracted fact, checked: a date of a known precision or none, turns that exist, bounded confidence. */
export interface CleanFact {
  readonly statement: string
  readonly kind: typeof FACT_KINDS[number]
  readonly confidence: number
  readonly occurred: string | null
  readonly timePrecision: "year" | "month" | "day" | "minute" | null
  /** 1-based numbers of the session's turns it comes from. */
  readonly turns: ReadonlyArray<number>
  readonly entities: ReadonlyArray<{ readonly name: string; readonly role: string }>
  readonly predicate: string
}

/** What to do with a new fact: add it, or update, contradict or repeat a current one (with why). */
export type Decision =
  | { readonly action: "add" }
  | { readonly action: "update" | "contradict" | "duplicate"; readonly target: FactRow; readonly reason: string }
