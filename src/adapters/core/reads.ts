import { Either } from "effect"
import type { SearchHit } from "../../api/RetrievalApi.js"
import type { MemoryClient } from "./client.js"
import { attempt } from "./failure.js"
import { type MemoryScope, scoped } from "./scope.js"

/** Who a call is for: the user, and the scope keys narrowing it. */
export interface Subject {
  readonly userId: string
  readonly scope?: MemoryScope | undefined
}

/** The API's bounds on a context's token budget. */
const clampBudget = (tokens: number) => Math.min(32_000, Math.max(100, Math.round(tokens)))

/**
 * The context block for a query within a token budget, or undefined (with a notice and the
 * `degraded` counter) when the service is down, slow or refuses: the caller goes on without it.
 */
export const readContext = async (client: MemoryClient, subject: Subject, query: string, tokenBudget: number) => {
  const answer = await attempt(client, client.api.retrieval.context({
    payload: { ...scoped(subject.userId, subject.scope), query, token_budget: clampBudget(tokenBudget) }
  }))
  if (Either.isLeft(answer)) {
    client.note("degraded", "context skipped, answering without memory", answer.left.line)
    return undefined
  }
  return answer.right.text.trim() === "" ? undefined : answer.right.text
}

/** The ranked hits for a query, or none (with a notice and the `degraded` counter) when the service cannot answer in time. */
export const readHits = async (client: MemoryClient, subject: Subject, query: string, topK: number): Promise<ReadonlyArray<SearchHit>> => {
  const answer = await attempt(client, client.api.retrieval.search({
    payload: { ...scoped(subject.userId, subject.scope), query, top_k: Math.min(100, Math.max(1, topK)), include_superseded: false }
  }))
  if (Either.isLeft(answer)) {
    client.note("degraded", "search skipped, answering without memory", answer.left.line)
    return []
  }
  return answer.right.hits
}
