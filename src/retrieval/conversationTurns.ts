import { normalizeName } from "../domain/text.js"
import type { Scored, TurnRow } from "../domain/records.js"
import type { Route } from "./fusion.js"

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
/** How many turns either side of a seed, in its session, share in its score. */
export const NEIGHBOUR_REACH = 2
/** How many of the best lexical turns lend their score to their neighbours. */
export const NEIGHBOUR_SEEDS = 5

// A transcript line's speaker: one to three capitalised words before a colon ("Caroline: …", "Dr. Ada Lane: …").
const SPEAKER_PREFIX = /^\s*(\p{Lu}[\p{L}\p{M}'’.-]*(?:\s+\p{Lu}[\p{L}\p{M}'’.-]*){0,2})\s*:\s/u

/** Who speaks a turn written as a transcript line (`Name: text`), normalized; null when it does not say. */
export const speakerOf = (content: string): string | null => {
  const name = SPEAKER_PREFIX.exec(content)?.[1]
  return name === undefined ? null : normalizeName(name)
}

/**
 * Whether a query names a speaker: every word of the name is among the query's, or the first
 * word is (a person asked about by first name).
 */
const names = (queryWords: ReadonlySet<string>, speaker: string) => {
  const words = speaker.split(" ")
  return queryWords.has(words[0]!) || words.every((word) => queryWords.has(word))
}

/**
 * The turns of a conversation ranked for a query, with no LLM: by bm25, a turn spoken by a person
 * the query names counting double (a question about someone is answered by what they said), and
 * the few best turns (the seeds) lending part of their score to the other turns within two of them
 * in their session (an answer sits next to the question or remark that names its subject). The
 * lexical turns come best first; the neighbours are the turns near the seeds.
 */
export const rankConversationTurns = (
  query: string,
  lexical: ReadonlyArray<Scored<TurnRow>>,
  neighbours: ReadonlyArray<TurnRow>
): Array<RankedTurn> => {
  const queryWords = new Set(normalizeName(query).split(" "))
  const named = new Map<string, boolean>()
  const factor = (turn: TurnRow) => {
    const speaker = speakerOf(turn.content)
    if (speaker === null) return 1
    const isNamed = named.get(speaker) ?? names(queryWords, speaker)
    named.set(speaker, isNamed)
    return isNamed ? NAMED_SPEAKER_FACTOR : 1
  }

  const turns = new Map<number, { row: TurnRow; lexical: number; lent: number; lexicalRank: number | null }>()
  lexical.forEach(({ row, score }, i) => turns.set(row.seq, { row, lexical: score, lent: 0, lexicalRank: i + 1 }))
  const seeds = lexical.slice(0, NEIGHBOUR_SEEDS).map(({ row, score }) => ({ row, lends: NEIGHBOUR_SHARE * score * factor(row) }))
  // A seed keeps its own score: two seeds side by side do not lift each other.
  const seedSeqs = new Set(seeds.map((seed) => seed.row.seq))
  for (const row of neighbours) {
    if (seedSeqs.has(row.seq)) continue
    const lent = seeds.reduce((sum, seed) => {
      const distance = Math.abs(seed.row.position - row.position)
      return seed.row.session_id === row.session_id && distance > 0 && distance <= NEIGHBOUR_REACH ? sum + seed.lends : sum
    }, 0)
    if (lent === 0) continue
    const turn = turns.get(row.seq) ?? { row, lexical: 0, lent: 0, lexicalRank: null }
    turn.lent = lent
    turns.set(row.seq, turn)
  }

  const ranked = [...turns.values()]
    .map((turn) => ({ ...turn, score: factor(turn.row) * (turn.lexical + turn.lent) }))
    .sort((a, b) => b.score - a.score || a.row.seq - b.row.seq)
  const lentRanks = new Map([...ranked].filter((turn) => turn.lent > 0).sort((a, b) => b.lent - a.lent || a.row.seq - b.row.seq).map((turn, i) => [turn.row.seq, i + 1]))
  return ranked.map((turn) => ({
    row: turn.row,
    score: turn.score,
    routes: [
      ...(turn.lexicalRank === null ? [] : [{ route: "lexical_turns" as const, rank: turn.lexicalRank, score: round(turn.lexical) }]),
      ...(turn.lent === 0 ? [] : [{ route: "neighbourhood" as const, rank: lentRanks.get(turn.row.seq)!, score: round(turn.lent) }])
    ]
  }))
}

const round = (n: number) => Math.round(n * 1e6) / 1e6
