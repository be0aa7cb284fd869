import { Either, Option, Schema } from "effect"
import type { MemoryClient } from "./client.js"
import { attempt } from "./failure.js"

/** An export line holding one turn; every other line (header, facts, the end record) is not one. */
const TurnLine = Schema.parseJson(Schema.Struct({
  type: Schema.Literal("turn"),
  session_id: Schema.String,
  position: Schema.Number,
  role: Schema.String,
  content: Schema.String
}))

export type SessionTurn = typeof TurnLine.Type

const turnOf = Schema.decodeUnknownOption(TurnLine)

/**
 * A session's turns in order, read from the user's export (the one route that lists turns);
 * none for a user without data, and none (noted as degraded) when the service cannot answer.
 */
export const readSessionTurns = async (client: MemoryClient, userId: string, sessionId: string): Promise<ReadonlyArray<SessionTurn>> => {
  const answer = await attempt(client, client.api.portability.exportUser({ urlParams: { user_id: userId, include_vectors: false } }))
  if (Either.isLeft(answer)) {
    if (answer.left.code !== "not_found") client.note("degraded", "session history skipped, answering without it", answer.left.line)
    return []
  }
  return answer.right.split("\n")
    .flatMap((line) => Option.toArray(turnOf(line)))
    .filter((turn) => turn.session_id === sessionId)
    .sort((a, b) => a.position - b.position)
}
