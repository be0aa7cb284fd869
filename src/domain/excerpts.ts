import { analyseQuery } from "../retrieval/query.js"

/** What a turn shows where an archived memory's words were. */
export const ELISION = "[…]"
/** What a turn holds where a purged memory's words were. */
export const REDACTION = "[redacted]"

interface Range {
  readonly start: number
  readonly end: number
}

// A sentence runs to its closing punctuation (with any closing quote or bracket, ” and ’ among
// them) before a space or the end, or to the end of its line. Non-ASCII characters are escaped:
// the build keeps the bundles ASCII (scripts/build/bundle.mjs).
const SENTENCE = /\S[^\n]*?(?:[.!?]+["'\u201D\u2019)\]]*(?=\s|$)|(?=\n)|$)/g

// A marker ([redacted] or […]) stands alone: what follows it is a sentence of its own.
const MARKER = /\[redacted\]|\[\u2026\]/g

const sentences = (text: string): Array<Range> => {
  const found: Array<Range> = []
  let from = 0
  for (const end of [...Array.from(text.matchAll(MARKER), (marker) => marker.index), text.length]) {
    const part = text.slice(from, end)
    for (const match of part.matchAll(SENTENCE)) found.push({ start: from + match.index, end: from + match.index + match[0].length })
    from = text.indexOf("]", end) + 1
  }
  return found
}

// Statements name the user as "the user"; that says nothing about which sentence they come from.
const NOT_TELLING = new Set(["user", "users"])

const sameWord = (a: string, b: string) => a === b || (Math.min(a.length, b.length) >= 4 && (a.startsWith(b) || b.startsWith(a)))

/**
 * Where a memory's words are in a turn it was taken from: the sentences that share the most of
 * its statement's content words (every one sharing at least half as many as the best), or every
 * sentence (all the turn but the markers it holds) when it is one sentence or no sentence shares
 * a word. Erring towards more: what is forgotten must not stay behind.
 */
export const excerptRanges = (statement: string, text: string): ReadonlyArray<Range> => {
  const parts = sentences(text)
  if (parts.length <= 1) return parts
  const terms = analyseQuery(statement).terms.filter((term) => !NOT_TELLING.has(term))
  const scores = parts.map(({ end, start }) => {
    const words = analyseQuery(text.slice(start, end)).terms
    return terms.filter((term) => words.some((word) => sameWord(term, word))).length
  })
  const best = Math.max(...scores)
  return best === 0 ? parts : parts.filter((_, i) => scores[i]! > 0 && scores[i]! * 2 >= best)
}

/** Ranges in order, those that overlap or are apart by spaces only joined into one. */
const merged = (ranges: ReadonlyArray<Range>, text: string) => {
  const out: Array<Range> = []
  for (const range of [...ranges].sort((a, b) => a.start - b.start)) {
    const last = out[out.length - 1]
    if (last !== undefined && text.slice(last.end, range.start).trim() === "") {
      out[out.length - 1] = { start: last.start, end: Math.max(last.end, range.end) }
    } else out.push(range)
  }
  return out
}

/**
 * A turn with the words of some of the memories taken from it replaced by `marker`, and the
 * passages replaced (each as it read in the turn).
 */
export const withoutMemories = (text: string, statements: ReadonlyArray<string>, marker: string) => {
  const ranges = merged(statements.flatMap((statement) => excerptRanges(statement, text)), text)
  let kept = ""
  let at = 0
  for (const { end, start } of ranges) {
    kept += text.slice(at, start) + marker
    at = end
  }
  return { text: kept + text.slice(at), removed: ranges.map(({ end, start }) => text.slice(start, end)) }
}

/** Whether a turn still says anything once its markers are set aside: one that does not is not worth a vector. */
export const hasWords = (text: string) => /[\p{L}\p{N}]/u.test(text.replaceAll(ELISION, "").replaceAll(REDACTION, ""))
