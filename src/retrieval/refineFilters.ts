import type { EvidenceItem } from "./evidence.js"
import { normalizeName } from "../domain/text.js"

/** The filters of a refine; "" and null mean not set. */
export interface RefineFilterInput {
  readonly entity: string
  readonly session_id: string
  readonly min_confidence: number | null
  readonly occurred_from: string | null
  readonly occurred_to: string | null
}

/** The local date an item happened on, at its own precision: YYYY, YYYY-MM or YYYY-MM-DD. */
const dateOf = (item: EvidenceItem) => (item.occurred_start ?? item.session_time)?.slice(0, 10) ?? null

/**
 * Compares two dates at the coarser precision of the two, so a fact dated "2024" lies within
 * 2024-06-01..2024-06-30 and a bound "2024" holds every day of that year (both ends inclusive).
 */
const compareCoarse = (a: string, b: string) => {
  const n = Math.min(a.length, b.length)
  return a.slice(0, n).localeCompare(b.slice(0, n))
}

/** A predicate keeping the items that match every filter set. */
export const refineMatcher = (filters: RefineFilterInput) => {
  const entity = normalizeName(filters.entity)
  const from = filters.occurred_from?.slice(0, 10) ?? null
  const to = filters.occurred_to?.slice(0, 10) ?? null
  return (item: EvidenceItem) => {
    const names = Object.values(item.entity_roles ?? {}).flat()
    if (filters.entity !== "" && !names.some((name) => normalizeName(name).includes(entity))) return false
    if (filters.session_id !== "" && item.source_session_id !== filters.session_id) return false
    const confidence = item.confidence ?? null
    if (filters.min_confidence !== null && (confidence === null || confidence < filters.min_confidence)) return false
    if (from === null && to === null) return true
    const date = dateOf(item)
    if (date === null) return false
    return (from === null || compareCoarse(date, from) >= 0) && (to === null || compareCoarse(date, to) <= 0)
  }
}
