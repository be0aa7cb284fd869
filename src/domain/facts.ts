import type { FactRow } from "./records.js"

/** What a memory is: a fact, an event, a state or preference that may change, or an entity's profile. */
export const FACT_KINDS = ["fact", "event", "state", "preference", "profile"] as const

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
