import { Effect } from "effect"
import type { ScopeFilter, TurnRow } from "../../../../domain/records.js"
import type { RetrievalQueries } from "../retrieval.js"

/** The neighbourhood leg: the turns just before and after the best lexical turns, in the order of their seeds' sessions. */
export const neighbourhoodLeg = (
  q: ReturnType<typeof RetrievalQueries>,
  options: { readonly seeds: ReadonlyArray<TurnRow>; readonly scope: ScopeFilter }
) =>
  Effect.map(q.neighbours(options.seeds, options.scope), (neighbours) => {
    const seedOrder = new Map(options.seeds.map((turn, i) => [turn.session_id, i]))
    return [...neighbours].sort((a, b) => (seedOrder.get(a.session_id) ?? 0) - (seedOrder.get(b.session_id) ?? 0))
  })
