import type { ScopeFilter } from "../../../../domain/records.js"
import type { RetrievalQueries } from "../retrieval.js"

/** The entity leg: facts of the entities the query names, then the facts one edge away from them. */
export const entityLeg = (
  q: ReturnType<typeof RetrievalQueries>,
  options: { readonly names: ReadonlyArray<string>; readonly scope: ScopeFilter; readonly statuses: ReadonlyArray<string>; readonly limit: number }
) => q.factsOfEntities(options)
