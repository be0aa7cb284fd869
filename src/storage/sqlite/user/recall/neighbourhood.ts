import { Effect } from "effect"
import type { ScopeFilter, TurnRow } from "../../../../domain/records.js"
import { inSessionOrder } from "../../../neighbourhood.js"
import type { RetrievalQueries } from "../retrieval.js"

/** The neighbourhood leg: the turns just before and after the best lexical turns (the seeds). */
export const neighbourhoodLeg = (
  q: ReturnType<typeof RetrievalQueries>,
  options: { readonly lexicalTurns: ReadonlyArray<TurnRow>; readonly seeds: number; readonly scope: ScopeFilter }
) => Effect.map(q.neighbours(options.lexicalTurns.slice(0, options.seeds), options.scope), (neighbours) => inSessionOrder(neighbours, options.lexicalTurns))
