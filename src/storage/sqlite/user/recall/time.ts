import { Effect } from "effect"
import type { FactRow, ScopeFilter, TurnRow } from "../../../../domain/records.js"
import type { RetrievalQueries } from "../retrieval.js"

/**
 * The time leg: everything on the date the query names, in date order; fusion then favours what
 * the other legs also found. `facts` says whether the store holds any fact to look among.
 */
export const timeLeg = (
  q: ReturnType<typeof RetrievalQueries>,
  options: { readonly datePrefix: string | null; readonly facts: boolean; readonly scope: ScopeFilter; readonly statuses: ReadonlyArray<string>; readonly limit: number }
) => {
  const { datePrefix, limit, scope, statuses } = options
  if (datePrefix === null) return Effect.succeed({ facts: [] as ReadonlyArray<FactRow>, turns: [] as ReadonlyArray<TurnRow> })
  return Effect.all({
    facts: options.facts ? q.factsOnDate({ scope, statuses, datePrefix, limit }) : Effect.succeed([] as ReadonlyArray<FactRow>),
    turns: q.turnsOnDate({ scope, datePrefix, limit })
  })
}
