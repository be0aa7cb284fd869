/** What retrieval reads out of a query: its content words and the dates it names. */
export interface QueryAnalysis {
  readonly terms: ReadonlyArray<string>
  /** Local-time prefixes (`2023`, `2023-05`, `2023-05-08`) of the dates the query names. */
  readonly timePrefixes: ReadonlyArray<string>
}

// Function words that match nearly every turn and only dilute bm25.
const STOPWORDS = new Set(
  ("a about above after again against all am an and any are as at be because been before being below between both but by " +
    "can could did do does doing down during each few for from further had has have having he her here hers herself him " +
    "himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other " +
    "our ours ourselves out over own same she should so some such than that the their theirs them themselves then there " +
    "these they this those through to too under until up very was we were what when where which while who whom why will " +
    "with would you your yours yourself yourselves s t don ll ve re d m").split(" ")
)

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"]
const MONTH = `(${MONTHS.map((m) => m.slice(0, 3)).join("|")})[a-z]*\\.?`
// Compiled once: matchAll runs a copy of each, so these keep no state between queries.
const DAY_MONTH_YEAR = new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+${MONTH},?\\s+(\\d{4})\\b`, "gi")
const MONTH_DAY_YEAR = new RegExp(`\\b${MONTH}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`, "gi")
const MONTH_YEAR = new RegExp(`\\b${MONTH}\\s+(\\d{4})\\b`, "gi")

const pad = (n: number) => String(n).padStart(2, "0")
const monthNumber = (name: string) => MONTHS.findIndex((m) => m.startsWith(name.slice(0, 3).toLowerCase())) + 1

/** Dates named in a query, most precise first: `8 May 2023`, `May 8, 2023`, `May 2023`, `2023-05-08`, `2023`. */
const timePrefixes = (text: string): Array<string> => {
  const found = new Set<string>()
  for (const m of text.matchAll(/\b(\d{4})-(\d{2})(?:-(\d{2}))?\b/g)) found.add(m[3] === undefined ? `${m[1]}-${m[2]}` : `${m[1]}-${m[2]}-${m[3]}`)
  for (const m of text.matchAll(DAY_MONTH_YEAR)) {
    found.add(`${m[3]}-${pad(monthNumber(m[2]!))}-${pad(Number(m[1]))}`)
  }
  for (const m of text.matchAll(MONTH_DAY_YEAR)) {
    found.add(`${m[3]}-${pad(monthNumber(m[1]!))}-${pad(Number(m[2]))}`)
  }
  for (const m of text.matchAll(MONTH_YEAR)) found.add(`${m[2]}-${pad(monthNumber(m[1]!))}`)
  for (const m of text.matchAll(/\b(19\d{2}|20\d{2})\b/g)) found.add(m[1]!)
  // "8 May 2023" also reads as "May 2023" and "2023": keep only the most precise.
  const dates = [...found]
  return dates.filter((date) => !dates.some((other) => other !== date && other.startsWith(date))).sort((a, b) => b.length - a.length)
}

/**
 * How many of a query's words retrieval reads: its first distinct content words for the lexical
 * legs, its first words for the names it may hold. A query may be a whole document (an agent's
 * prompt); beyond this, more words only make each leg's statements larger (on PostgreSQL, past
 * what one statement can bind), while the lexical legs keep only the rarest few terms anyway.
 */
export const MAX_QUERY_WORDS = 256

/** Whether a lower-cased word is a function word search leaves out. */
export const isStopword = (word: string) => STOPWORDS.has(word)

export const analyseQuery = (query: string): QueryAnalysis => {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []
  const terms = [...new Set(words.filter((word) => !STOPWORDS.has(word)))]
  return { terms, timePrefixes: timePrefixes(query) }
}
