import type { ScopeFilter, Scored, TurnRow } from "../../../../domain/records.js"
import type { RetrievalQueries } from "../retrieval.js"

/** The neighbourhood leg: the turns within reach of the best lexical turns (the seeds) in their sessions. */
export const neighbourhoodLeg = (
  q: ReturnType<typeof RetrievalQueries>,
  options: { readonly lexicalTurns: ReadonlyArray<Scored<TurnRow>>; readonly seeds: number; readonly reach: number; readonly scope: ScopeFilter }
) => q.neighbours(options.lexicalTurns.slice(0, options.seeds).map((turn) => turn.row), options.reach, options.scope)
