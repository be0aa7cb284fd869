import { Effect } from "effect"
import { stemmer } from "stemmer"
import { selectiveTerms } from "../../../lexicalTerms.js"
import type { FactRow, ScopeFilter } from "../../../../domain/records.js"
import type { RetrievalQueries } from "../retrieval.js"

type Queries = ReturnType<typeof RetrievalQueries>

/** An FTS5 expression matching any of the terms (each quoted, so no word is read as an operator). */
export const ftsExpression = (terms: ReadonlyArray<string>) => terms.map((term) => `"${term.replaceAll("\"", "")}"`).join(" OR ")

/**
 * The FTS5 expression of a text's selective terms, given each term's stem and how many documents
 * hold each stem; null when none is left.
 */
const selectiveExpression = (stems: ReadonlyMap<string, string>, frequency: ReadonlyMap<string, number>) => {
  const selected = selectiveTerms([...stems.keys()], (term) => frequency.get(stems.get(term)!) ?? 0)
  return selected.length === 0 ? null : ftsExpression(selected)
}

/** The indexes hold Porter stems: each term stemmed once, looked up in both. */
const stemsOf = (terms: ReadonlyArray<string>) => new Map(terms.map((term) => [term, stemmer(term)]))

/** How many documents of an index hold each stem; a stem the index lacks is absent. */
const documentFrequencies = (q: Queries, index: "facts" | "turns", stems: Iterable<string>) =>
  Effect.map(q.termFrequencies(index, [...new Set(stems)]), (rows) => new Map(rows.map((row) => [row.term, row.doc])))

/**
 * The lexical legs: facts and turns by bm25 over the query's selective terms (the turns with their
 * scores), and whether the store holds any fact at all (the other legs over facts need not run).
 */
export const lexicalLegs = (
  q: Queries,
  options: { readonly terms: ReadonlyArray<string>; readonly scope: ScopeFilter; readonly statuses: ReadonlyArray<string>; readonly limit: number }
) =>
  Effect.gen(function*() {
    const { limit, scope, statuses } = options
    const stems = stemsOf(options.terms)
    const frequencies = yield* q.lexicalFrequencies([...new Set(stems.values())])
    const factExpression = frequencies.anyFact ? selectiveExpression(stems, frequencies.facts) : null
    const turnExpression = selectiveExpression(stems, frequencies.turns)
    const [facts, turns] = yield* Effect.all([
      factExpression === null ? Effect.succeed([]) : q.factsMatching({ expression: factExpression, scope, statuses, limit }),
      turnExpression === null ? Effect.succeed([]) : q.turnsMatching({ expression: turnExpression, scope, limit })
    ])
    return { facts, turns, anyFact: frequencies.anyFact }
  })

/** For each list of terms, the current facts most like it by bm25 over its selective terms, best first. */
export const similarFacts = (
  q: Queries,
  options: { readonly terms: ReadonlyArray<ReadonlyArray<string>>; readonly scope: ScopeFilter; readonly limit: number }
) =>
  Effect.gen(function*() {
    const stemsOfEach = options.terms.map(stemsOf)
    // One lookup of how common each word is, for all the lists.
    const frequency = yield* documentFrequencies(q, "facts", stemsOfEach.flatMap((stems) => [...stems.values()]))
    return yield* Effect.forEach(stemsOfEach, (stems) => {
      const expression = selectiveExpression(stems, frequency)
      return expression === null
        ? Effect.succeed([] as ReadonlyArray<FactRow>)
        : q.factsMatching({ expression, scope: options.scope, statuses: ["active"], limit: options.limit })
    })
  })
