import { Either } from "effect"
import type { MemoryClient } from "./client.js"
import { attempt } from "./failure.js"

export interface SessionTurn {
  readonly position: number
  readonly role: string
  readonly content: string
}

const isTurnOf = (sessionId: string) => (record: unknown): record is SessionTurn & { readonly session_id: string } =>
  typeof record === "object" && record !== null && "type" in record && record.type === "turn" &&
  "session_id" in record && record.session_id === sessionId && "position" in record && typeof record.position === "number" &&
  "role" in record && typeof record.role === "string" && "content" in record && typeof record.content === "string"

const parseLine = (line: string): unknown => {
  try {
    return JSON.parse(line)
  } catch {
    return undefined
  }
}

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
  return answer.right.split("\n").map(parseLine).filter(isTurnOf(sessionId)).sort((a, b) => a.position - b.position)
}
