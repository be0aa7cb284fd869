/** A retrieval leg fusion ranks by: each a ranked list of candidates. */
export type Leg = "lexical_facts" | "lexical_turns" | "vector_facts" | "vector_turns" | "entity" | "time"

/** What an evidence item's `routes` name: the legs, and the neighbours that lent a turn their score. */
export type RouteName = Leg | "neighbourhood"

/** How much a first place in each leg is worth; rank r contributes weight / (RRF_K + r). */
export const LEG_WEIGHTS: Record<Leg, number> = {
  lexical_facts: 1.2,
  lexical_turns: 1,
  vector_facts: 1.1,
  vector_turns: 0.9,
  entity: 0.8,
  time: 0.8
}

const RRF_K = 60

/**
 * One route that found an item: its rank there and what it scored the item. A leg scores its share
 * of the fusion; a leg whose items bring their own routes (the conversation's turns) reports those.
 */
export interface Route {
  readonly route: RouteName
  readonly rank: number
  readonly score: number
}

export interface Fused<T> {
  readonly key: string
  readonly value: T
  readonly routes: Array<Route>
  score: number
}

/** A leg's candidate: its key (the same item in two legs shares it), and the routes that found it when the leg is made of several. */
export interface LegItem<T> {
  readonly key: string
  readonly value: T
  readonly routes?: ReadonlyArray<Route>
}

/**
 * Weighted reciprocal-rank fusion: an item's score sums what each leg that found it gives for
 * its rank there, so agreement between legs lifts an item above any single leg's best.
 */
export const fuse = <T>(legs: ReadonlyArray<{ readonly leg: Leg; readonly items: ReadonlyArray<LegItem<T>> }>) => {
  const byKey = new Map<string, Fused<T> & { legs: Set<Leg> }>()
  for (const { items, leg } of legs) {
    items.forEach((item, index) => {
      const rank = index + 1
      const score = LEG_WEIGHTS[leg] / (RRF_K + rank)
      const fused = byKey.get(item.key) ?? { key: item.key, value: item.value, routes: [], score: 0, legs: new Set<Leg>() }
      if (fused.legs.has(leg)) return
      fused.legs.add(leg)
      fused.routes.push(...(item.routes ?? [{ route: leg, rank, score: round(score) }]))
      fused.score += score
      byKey.set(item.key, fused)
    })
  }
  return [...byKey.values()]
    .map(({ key, routes, score, value }): Fused<T> => ({ key, value, routes, score }))
    .sort((a, b) => b.score - a.score || a.key.localeCompare(b.key))
}

const round = (n: number) => Math.round(n * 1e6) / 1e6
