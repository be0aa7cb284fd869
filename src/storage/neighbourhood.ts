import type { TurnRow } from "../domain/records.js"

/**
 * The neighbourhood leg's order, on every backend: neighbouring turns by where their session
 * last stands among the lexical turns, the order they were found in kept within a session.
 */
export const inSessionOrder = (neighbours: ReadonlyArray<TurnRow>, lexicalTurns: ReadonlyArray<TurnRow>) => {
  const rank = new Map(lexicalTurns.map((turn, i) => [turn.session_id, i]))
  return [...neighbours].sort((a, b) => (rank.get(a.session_id) ?? 0) - (rank.get(b.session_id) ?? 0))
}
