import { describe, expect, it } from "@effect/vitest"
import { AIMessage, HumanMessage } from "@langchain/core/messages"
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts"
import { RunnablePassthrough, RunnableWithMessageHistory } from "@langchain/core/runnables"
import { ChatOpenAI } from "@langchain/openai"
import { Effect } from "effect"
import { createAgent } from "langchain"
import type { MemoryClient } from "../../src/adapters/core/client.js"
import { MemoryChatMessageHistory, MemoryRetriever, memoryTools } from "../../src/adapters/langchain/index.js"
import { adapterClient, agentCalls, closedPortUrl, memoryWorld, silentServerUrl } from "../support/adapters.js"
import { ingestTurn } from "../support/server.js"

const TIMEOUT = 120_000

const chatModel = (baseURL: string) => new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "stub-key-langchain", configuration: { baseURL }, maxRetries: 0 })

/** A chat chain as LangChain's guides build one: memories retrieved into the system prompt, the session's history before the question. */
const memoryChain = (client: MemoryClient, baseURL: string, userId: string) => {
  const retriever = new MemoryRetriever({ client, userId })
  const prompt = ChatPromptTemplate.fromMessages([
    ["system", "You are a helpful assistant.\nMemories:\n{memories}"],
    new MessagesPlaceholder("history"),
    ["human", "{input}"]
  ])
  const chain = RunnablePassthrough.assign({
    memories: async (input: { readonly input: string }) => (await retriever.invoke(input.input)).map((doc) => doc.pageContent).join("\n")
  }).pipe(prompt).pipe(chatModel(baseURL))
  return new RunnableWithMessageHistory({
    runnable: chain,
    getMessageHistory: (sessionId: string) => new MemoryChatMessageHistory({ client, userId, sessionId }),
    inputMessagesKey: "input",
    historyMessagesKey: "history"
  })
}

const say = (chain: ReturnType<typeof memoryChain>, input: string, sessionId: string) =>
  Effect.promise(() => chain.invoke({ input }, { configurable: { sessionId } })).pipe(Effect.map((message) => message.text))

describe("the LangChain retriever and chat history", () => {
  it.scopedLive("recall in a later conversation what was told in an earlier one, and keep each session's turns in order", () =>
    Effect.gen(function*() {
      const { stub, client } = yield* memoryWorld()
      const chain = memoryChain(client, stub.url, "alice")

      expect(yield* say(chain, "My sister Ines lives in Porto.", "first")).toBe("Noted: My sister Ines lives in Porto.")
      const answer = yield* say(chain, "Where does my sister Ines live?", "second")
      expect(answer).toContain("Porto")
      expect(agentCalls(stub).at(-1)).toContain("Porto")

      const first = yield* Effect.promise(() => new MemoryChatMessageHistory({ client, userId: "alice", sessionId: "first" }).getMessages())
      expect(first.map((message) => [message.getType(), message.text])).toEqual([
        ["human", "My sister Ines lives in Porto."],
        ["ai", "Noted: My sister Ines lives in Porto."]
      ])
      const docs = yield* Effect.promise(() => new MemoryRetriever({ client, userId: "alice" }).invoke("sister Porto"))
      const porto = docs.find((doc) => doc.pageContent.includes("Porto"))!
      expect(porto.metadata).toMatchObject({ id: expect.any(String), score: expect.any(Number), session_id: "first" })
      expect(Object.keys(porto.metadata.provenance).length).toBeGreaterThan(0)
      expect(client.stats.degraded).toBe(0)
    }), TIMEOUT)

  it.scopedLive("answer without memory when the service is down or never answers, and say so", () =>
    Effect.gen(function*() {
      const { stub } = yield* memoryWorld()
      for (const url of [yield* closedPortUrl, yield* silentServerUrl]) {
        const { client, lines } = adapterClient(url, 300)
        const answer = yield* say(memoryChain(client, stub.url, "dave"), "I like tea.", "s1")
        expect(answer).toBe("Noted: I like tea.")
        // The history read and the retriever's search went without memory; the exchange could not be stored.
        expect(client.stats).toMatchObject({ degraded: 2, storeFailures: 1 })
        expect(lines.filter((line) => line.includes("answering without"))).toHaveLength(2)
      }
    }), TIMEOUT)

  it.scopedLive("keep two users apart when made from one configuration and used at once", () =>
    Effect.gen(function*() {
      const { server, client } = yield* memoryWorld()
      yield* ingestTurn(server.baseUrl, "alice", "I live in Lisbon near the river.")
      yield* ingestTurn(server.baseUrl, "bob", "I live in Oslo near the fjord.")
      const shared = { client, topK: 5 }
      const [alice, bob] = yield* Effect.all([
        Effect.promise(() => new MemoryRetriever({ ...shared, userId: "alice" }).invoke("where do I live")),
        Effect.promise(() => new MemoryRetriever({ ...shared, userId: "bob" }).invoke("where do I live"))
      ], { concurrency: 2 })
      expect(alice.map((doc) => doc.pageContent)).toEqual(["I live in Lisbon near the river."])
      expect(bob.map((doc) => doc.pageContent)).toEqual(["I live in Oslo near the fjord."])

      yield* Effect.promise(() => new MemoryChatMessageHistory({ client, userId: "bob", sessionId: "s9" }).addMessages([new HumanMessage("Hi"), new AIMessage("Hello")]))
      const alices = yield* Effect.promise(() => new MemoryChatMessageHistory({ client, userId: "alice", sessionId: "s9" }).getMessages())
      expect(alices).toEqual([])
    }), TIMEOUT)
})

describe("the LangChain memory tools", () => {
  it.scopedLive("remember in one conversation and recall in a later one, in LangChain's agent loop", () =>
    Effect.gen(function*() {
      const { stub, client } = yield* memoryWorld()
      const agent = createAgent({ model: chatModel(stub.url), tools: [...memoryTools({ client, userId: "erin" })] })
      const told = yield* Effect.promise(() => agent.invoke({ messages: [{ role: "user", content: "Remember that my passport number ends in 4471." }] }))
      expect(told.messages.map((message) => message.getType())).toEqual(["human", "ai", "tool", "ai"])
      expect(told.messages[2]!.text).toContain("\"ok\":true")

      const asked = yield* Effect.promise(() => agent.invoke({ messages: [{ role: "user", content: "What does my passport number end in?" }] }))
      expect(asked.messages[2]!.name).toBe("recall")
      expect(asked.messages.at(-1)!.text).toContain("4471")
    }), TIMEOUT)

  it.scopedLive("answer the model with a short typed error when the service is down", () =>
    Effect.gen(function*() {
      const { stub } = yield* memoryWorld()
      const down = adapterClient(yield* closedPortUrl, 300)
      const agent = createAgent({ model: chatModel(stub.url), tools: [...memoryTools({ client: down.client, userId: "erin" })] })
      const asked = yield* Effect.promise(() => agent.invoke({ messages: [{ role: "user", content: "What is my name?" }] }))
      expect(JSON.parse(asked.messages[2]!.text)).toMatchObject({ ok: false, error: { code: "unreachable" } })
      expect(asked.messages.at(-1)!.text).toContain("unreachable")
    }), TIMEOUT)
})
