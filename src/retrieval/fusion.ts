/** A retrieval leg's name, as it appears in an evidence item's `routes`. */
export type Leg = "lexical_facts" | "lexical_turns" | "vector_facts" | "vector_turns" | "entity" | "time" | "neighbourhood"

/** How much a first place in each leg is worth; rank r contributes weight / (RRF_K + r). */
export const LEG_WEIGHTS: Record<Leg, number> = {
  lexical_facts: 1.2,
  lexical_turns: 1,
  vector_facts: 1.1,
  vector_turns: 0.9,
  entity: 0.8,
  time: 0.8,
  neighbourhood: 0.35
}

const RRF_K = 60

export interface Route {
  readonly route: Leg
  readonly rank: number
  readonly score: number
}

export interface Fused<T> {
  readonly key: string
  readonly value: T
  readonly routes: Array<Route>
  score: number
}

/**
 * Weighted reciprocal-rank fusion: an item's score sums what each leg that found it gives for
 * its rank there, so agreement between legs lifts an item above any single leg's best.
 */
export const fuse = <T>(legs: ReadonlyArray<{ readonly leg: Leg; readonly items: ReadonlyArray<{ readonly key: string; readonly value: T }> }>) => {
  const byKey = new Map<string, Fused<T>>()
  for (const { items, leg } of legs) {
    items.forEach((item, index) => {
      const rank = index + 1
      const score = LEG_WEIGHTS[leg] / (RRF_K + rank)
      const fused = byKey.get(item.key) ?? { key: item.key, value: item.value, routes: [], score: 0 }
      if (fused.routes.some((route) => route.route === leg)) return
      fused.routes.push({ route: leg, rank, score: round(score) })
      fused.score += score
      byKey.set(item.key, fused)
    })
  }
  return [...byKey.values()].sort((a, b) => b.score - a.score || a.key.localeCompare(b.key))
}

const round = (n: number) => Math.round(n * 1e6) / 1e6

