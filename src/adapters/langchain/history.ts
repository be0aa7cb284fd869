import { BaseListChatMessageHistory } from "@langchain/core/chat_history"
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages"
import type { MemoryClient } from "../core/client.js"
import { storeMessages, type StoredMessage } from "../core/exchange.js"
import type { MemoryScope } from "../core/scope.js"
import { readSessionTurns } from "../core/turns.js"

export interface MemoryChatHistoryOptions {
  readonly client: MemoryClient
  readonly userId: string
  readonly sessionId: string
  readonly scope?: MemoryScope
  /** Extract facts from the messages with the service's LLM as they are added (default true), or keep them verbatim. */
  readonly infer?: boolean
}

const toMessage = (turn: { readonly role: string; readonly content: string }): BaseMessage =>
  turn.role === "assistant" ? new AIMessage(turn.content) : turn.role === "system" ? new SystemMessage(turn.content) : new HumanMessage(turn.content)

/** Only what the service stores: human, AI and system messages with their text (tool traffic is left out). */
const toStored = (message: BaseMessage): StoredMessage | undefined => {
  const type = message.getType()
  const role = type === "human" ? "user" : type === "ai" ? "assistant" : type === "system" ? "system" : undefined
  return role === undefined ? undefined : { role, content: message.text }
}

/**
 * A conversation's messages kept as a session's turns in the memory service: what is added is
 * ingested (and becomes recallable), what is read back are the session's turns in order. When the
 * service cannot answer, reads give no messages and writes are counted, never failing the chain.
 */
export class MemoryChatMessageHistory extends BaseListChatMessageHistory {
  lc_namespace = ["memory-service", "chat_history"]
  readonly #options: MemoryChatHistoryOptions

  constructor(options: MemoryChatHistoryOptions) {
    super()
    this.#options = options
  }

  override async getMessages(): Promise<Array<BaseMessage>> {
    const { client, userId, sessionId } = this.#options
    return (await readSessionTurns(client, userId, sessionId)).map(toMessage)
  }

  override async addMessage(message: BaseMessage): Promise<void> {
    await this.addMessages([message])
  }

  override async addMessages(messages: Array<BaseMessage>): Promise<void> {
    const { client, userId, scope, sessionId, infer } = this.#options
    const stored = messages.map(toStored).filter((message) => message !== undefined)
    await storeMessages(client, { userId, scope }, stored, { sessionId, infer, wait: true })
  }
}
