import { Effect } from "effect"
import type { FactRow, ScopeFilter, TurnRow } from "../../../../domain/records.js"
import type { RetrievalQueries } from "../retrieval.js"

/** The time leg: everything on the date the query names, in date order; fusion then favours what the other legs also found. */
export const timeLeg = (
  q: ReturnType<typeof RetrievalQueries>,
  options: { readonly datePrefix: string | null; readonly scope: ScopeFilter; readonly statuses: ReadonlyArray<string>; readonly limit: number }
) => {
  const { datePrefix, limit, scope, statuses } = options
  if (datePrefix === null) return Effect.succeed({ facts: [] as ReadonlyArray<FactRow>, turns: [] as ReadonlyArray<TurnRow> })
  return Effect.all({
    facts: q.factsOnDate({ scope, statuses, datePrefix, limit }),
    turns: q.turnsOnDate({ scope, datePrefix, limit })
  })
}
