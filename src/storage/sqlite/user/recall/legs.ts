import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { RecallLegs, RecallQuery } from "../../../UserStore.js"
import { RetrievalQueries } from "../retrieval.js"
import { entityLeg } from "./entity.js"
import { lexicalLegs } from "./lexical.js"
import { neighbourhoodLeg } from "./neighbourhood.js"
import { timeLeg } from "./time.js"
import { vectorLeg } from "./vector.js"

/** Runs every retrieval leg over one store: each a ranked list of candidates. */
export const recallLegs = (sql: SqlClient.SqlClient, query: RecallQuery) =>
  Effect.gen(function*() {
    const { depth: limit, scope, statuses } = query
    const q = RetrievalQueries(sql)
    const vector = yield* vectorLeg(sql, q, { vector: query.vector, scope, statuses, limit: query.vectorDepth })
    const lexical = yield* lexicalLegs(q, { terms: query.terms, scope, statuses, limit })
    // A store without facts (one filled without extraction) has none to find by name or date.
    const entityFacts = lexical.anyFact ? yield* entityLeg(q, { names: query.names, scope, statuses, limit }) : []
    const dated = yield* timeLeg(q, { datePrefix: query.datePrefix, facts: lexical.anyFact, scope, statuses, limit })
    const neighbours = yield* neighbourhoodLeg(q, { lexicalTurns: lexical.turns, seeds: query.neighbourSeeds, reach: query.neighbourReach, scope })
    return {
      lexicalFacts: lexical.facts,
      lexicalTurns: lexical.turns,
      vector,
      entityFacts,
      datedFacts: dated.facts,
      datedTurns: dated.turns,
      neighbours
    } satisfies RecallLegs
  })
