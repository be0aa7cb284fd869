import { normalizeName } from "../domain/text.js"
import type { Scored, TurnRow } from "../domain/records.js"
import type { Route } from "./fusion.js"
import { isStopword } from "./query.js"

/** A turn as the conversation ranks it, with what each route gave it. */
export interface RankedTurn {
  readonly row: TurnRow
  readonly score: number
  readonly routes: ReadonlyArray<Route>
}

/** A turn spoken by a person the query names counts this many times its score. */
export const NAMED_SPEAKER_FACTOR = 2
/** The share of its score each of the best lexical turns (the seeds) lends the turns near it. */
export const NEIGHBOUR_SHARE = 0.3

/** Which turns lend their score, and how far. */
export interface Neighbourhood {
  /** How many of the best lexical turns lend their score to the turns near them. */
  readonly seeds: number
  /** How many turns either side of a seed, in its session, share in its score. */
  readonly reach: number
}

/** The neighbourhood search asks the store for and ranks by. */
export const NEIGHBOURHOOD: Neighbourhood = { seeds: 5, reach: 2 }

// A transcript line's speaker: one to three capitalised words before a colon ("Caroline: …", "Dr. Ada Lane: …").
const SPEAKER_PREFIX = /^\s*(\p{Lu}[\p{L}\p{M}'’.-]*(?:\s+\p{Lu}[\p{L}\p{M}'’.-]*){0,2})\s*:\s/u

// Words before a name that do not tell one person from another.
const TITLES = new Set(["dr", "mr", "mrs", "ms", "mx", "miss", "prof", "sir", "madam"])

/** Who speaks a turn written as a transcript line (`Name: text`), normalized; null when it does not say. */
export const speakerOf = (content: string): string | null => {
  const name = SPEAKER_PREFIX.exec(content)?.[1]
  return name === undefined ? null : normalizeName(name)
}

/**
 * The word a question calls a speaker by: the first of the name's words that is not a title, a
 * function word or a single letter ("ada" for "Dr. Ada Lane"); none for "A" or "Q".
 */
const givenName = (speaker: string) => speaker.split(" ").find((word) => word.length > 1 && !TITLES.has(word) && !isStopword(word))

/**
 * The turns of a conversation ranked for a query, with no LLM: by bm25, a turn spoken by a person
 * the query names counting double (a question about someone is answered by what they said), and
 * the few best turns (the seeds) lending part of their score to the other turns within reach of
 * them in their session (an answer sits next to the question or remark that names its subject).
 * The lexical turns come best first; the neighbours are the turns within reach of the seeds, the
 * seeds among them or not.
 */
export const rankConversationTurns = (options: {
  readonly query: string
  readonly lexical: ReadonlyArray<Scored<TurnRow>>
  readonly neighbours: ReadonlyArray<TurnRow>
  readonly neighbourhood: Neighbourhood
}): Array<RankedTurn> => {
  const { lexical, neighbourhood, neighbours } = options
  const queryWords = new Set(normalizeName(options.query).split(" "))
  // By the name as written: a conversation has few speakers, each normalized once per query.
  const factorOfName = new Map<string, number>()
  const factor = (turn: TurnRow) => {
    const name = SPEAKER_PREFIX.exec(turn.content)?.[1]
    if (name === undefined) return 1
    const known = factorOfName.get(name)
    if (known !== undefined) return known
    const given = givenName(normalizeName(name))
    const value = given !== undefined && queryWords.has(given) ? NAMED_SPEAKER_FACTOR : 1
    factorOfName.set(name, value)
    return value
  }

  const turns = new Map<number, { row: TurnRow; lexical: number; lent: number; lexicalRank: number | null }>()
  lexical.forEach(({ row, score }, i) => turns.set(row.seq, { row, lexical: score, lent: 0, lexicalRank: i + 1 }))
  const seeds = lexical.slice(0, neighbourhood.seeds).map(({ row, score }) => ({ row, lends: NEIGHBOUR_SHARE * score * factor(row) }))
  // A seed keeps its own score: two seeds side by side do not lift each other.
  const seedSeqs = new Set(seeds.map((seed) => seed.row.seq))
  for (const row of neighbours) {
    if (seedSeqs.has(row.seq)) continue
    const lent = seeds.reduce((sum, seed) =>
      seed.row.session_id === row.session_id && Math.abs(seed.row.position - row.position) <= neighbourhood.reach ? sum + seed.lends : sum, 0)
    if (lent === 0) continue
    const turn = turns.get(row.seq) ?? { row, lexical: 0, lent: 0, lexicalRank: null }
    turn.lent = lent
    turns.set(row.seq, turn)
  }

  // Each built field by field: a spread (`{ ...turn, score }`) is copied several times slower.
  const ranked = [...turns.values()]
    .map(({ lent, lexical, lexicalRank, row }) => ({ row, lexical, lent, lexicalRank, score: factor(row) * (lexical + lent) }))
    .sort((a, b) => b.score - a.score || a.row.seq - b.row.seq)
  const lentRanks = new Map([...ranked].filter((turn) => turn.lent > 0).sort((a, b) => b.lent - a.lent || a.row.seq - b.row.seq).map((turn, i) => [turn.row.seq, i + 1]))
  return ranked.map((turn) => {
    const lentRank = lentRanks.get(turn.row.seq)
    return {
      row: turn.row,
      score: turn.score,
      routes: [
        ...(turn.lexicalRank === null ? [] : [{ route: "lexical_turns" as const, rank: turn.lexicalRank, score: round(turn.lexical) }]),
        ...(lentRank === undefined ? [] : [{ route: "neighbourhood" as const, rank: lentRank, score: round(turn.lent) }])
      ]
    }
  })
}

const round = (n: number) => Math.round(n * 1e6) / 1e6
