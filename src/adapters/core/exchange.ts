import { Either } from "effect"
import type { MemoryClient } from "./client.js"
import { attempt } from "./failure.js"
import { scoped } from "./scope.js"
import type { Subject } from "./reads.js"

export interface StoredMessage {
  readonly role: "user" | "assistant" | "system"
  readonly content: string
}

export interface StoreOptions {
  readonly sessionId?: string | undefined
  /** Extract facts with the service's LLM (default true), or keep the turns verbatim. */
  readonly infer?: boolean | undefined
  /** Wait for the turns to be written (true) or let the service queue the work as a job (false). */
  readonly wait: boolean
}

/** Stores messages for a subject; true when the service took them. A failure is noted, never thrown. */
export const storeMessages = async (client: MemoryClient, subject: Subject, messages: ReadonlyArray<StoredMessage>, options: StoreOptions) => {
  const kept = messages.filter((message) => message.content.trim() !== "")
  if (kept.length === 0) return true
  const answer = await attempt(
    client,
    client.api.memories.add({
      payload: {
        ...scoped(subject.userId, subject.scope),
        messages: kept,
        ...(options.sessionId === undefined ? {} : { session_id: options.sessionId }),
        infer: options.infer ?? true,
        async_mode: !options.wait
      }
    }),
    client.writeTimeoutMs
  )
  if (Either.isLeft(answer)) client.note("storeFailures", "could not store the exchange", answer.left.line)
  return Either.isRight(answer)
}

/** Stores an exchange in the background: the answer is not kept waiting; `client.settled()` waits for it. */
export const storeInBackground = (client: MemoryClient, subject: Subject, messages: ReadonlyArray<StoredMessage>, options: Omit<StoreOptions, "wait">) =>
  client.track(storeMessages(client, subject, messages, { ...options, wait: false }))
