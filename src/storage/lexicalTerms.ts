// The lexical work of a search, bounded the same way on every backend: which of a query's
// terms to look up, given how many documents each matches.

/** How many postings bm25 may score per query and index: the work of a search, bounded. */
const POSTINGS_BUDGET = 4000
const MOST_TERMS = 5

/**
 * Where a backend may stop counting a term's documents: a term counted past the budget is only
 * ever selected when it is the query's rarest, so the selection is the same with counts stopped
 * here, unless every term reaches it (then their exact counts decide which is rarest).
 */
export const DOCUMENT_COUNT_CAP = POSTINGS_BUDGET + 1

/**
 * The terms worth querying an index with: the rarest first, as long as the documents they
 * match together stay within the budget, and at most five. The rarest term is always kept. A
 * small index keeps every term (its counts never reach the budget); a term whose count is unknown
 * is kept (it can only be rare).
 */
export const selectiveTerms = (terms: ReadonlyArray<string>, frequencyOf: (term: string) => number) => {
  const ranked = terms.map((term) => ({ term, df: frequencyOf(term) })).sort((a, b) => a.df - b.df || a.term.localeCompare(b.term))
  const selected: Array<string> = []
  let postings = 0
  for (const { df, term } of ranked) {
    if (selected.length === MOST_TERMS || (selected.length > 0 && postings + df > POSTINGS_BUDGET)) break
    selected.push(term)
    postings += df
  }
  return selected
}
