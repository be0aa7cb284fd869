import { createOpenAI } from "@ai-sdk/openai"
import { describe, expect, it } from "@effect/vitest"
import { generateText, isStepCount, streamText, wrapLanguageModel } from "ai"
import { Effect } from "effect"
import { argumentsFor, lastUserText } from "../../scripts/stubs/agent.js"
import { CONTEXT_HEADING, memoryMiddleware, memoryTools } from "../../src/adapters/ai-sdk/index.js"
import { adapterClient, agentCalls, closedPortUrl, memoryWorld, silentServerUrl, recalled } from "../support/adapters.js"
import { ingestTurn, startServer } from "../support/server.js"

const TIMEOUT = 120_000

const provider = (baseURL: string) => createOpenAI({ baseURL, apiKey: "stub-key-ai-sdk" })
const ask = (options: Parameters<typeof generateText>[0]) => Effect.promise(() => generateText(options))

describe("the AI SDK middleware", () => {
  it.scopedLive("recalls in a later conversation what was told in an earlier one, through the context in the prompt", () =>
    Effect.gen(function*() {
      const { stub, client } = yield* memoryWorld()
      const model = wrapLanguageModel({ model: provider(stub.url)("gpt-4o-mini"), middleware: memoryMiddleware({ client, userId: "alice" }) })

      const first = yield* ask({ model, prompt: "My sister Ines lives in Porto." })
      expect(first.text).toBe("Noted: My sister Ines lives in Porto.")
      // Stored in the background, through the service's ingest job: settled once the job has succeeded.
      yield* Effect.promise(() => client.settled())
      expect((yield* recalled(client, "alice", "sister Porto")).join("\n")).toContain("Porto")

      const later = yield* ask({ model, prompt: "Where does my sister Ines live?" })
      expect(later.text).toContain("Porto")
      // The default provider model speaks the Responses API; the block went in as a system message.
      const prompt = agentCalls(stub).at(-1)!
      expect(stub.requests.at(-1)!.path).toBe("/v1/responses")
      expect(prompt).toContain(CONTEXT_HEADING)
      expect(prompt).toContain("Porto")
      expect(client.stats.degraded).toBe(0)
    }), TIMEOUT)

  it.scopedLive("gives a streamed call the context block and stores its exchange once the stream has ended", () =>
    Effect.gen(function*() {
      const { stub, client, server } = yield* memoryWorld()
      yield* ingestTurn(server.baseUrl, "gina", "My bike is a green Brompton.")
      const model = wrapLanguageModel({ model: provider(stub.url).chat("gpt-4o-mini"), middleware: memoryMiddleware({ client, userId: "gina" }) })
      const streamed = yield* Effect.promise(async () => {
        const result = streamText({ model, prompt: "Which bike do I ride?" })
        let text = ""
        for await (const piece of result.textStream) text += piece
        return text
      })
      expect(streamed).toContain("green Brompton")
      expect(stub.requests.at(-1)!.body).toMatchObject({ stream: true })
      expect(agentCalls(stub).at(-1)).toContain(CONTEXT_HEADING)
      yield* Effect.promise(() => client.settled())
      expect(yield* recalled(client, "gina", "which bike ride")).toContain("Which bike do I ride?")
    }), TIMEOUT)

  it.scopedLive("keeps the context block within its token budget", () =>
    Effect.gen(function*() {
      const { stub, client, server } = yield* memoryWorld()
      for (let i = 0; i < 12; i++) yield* ingestTurn(server.baseUrl, "hana", `On trip ${i} I hiked the coastal trail past lighthouse number ${i} with my dog.`, `s${i}`)
      const blockOf = (tokenBudget: number) =>
        Effect.gen(function*() {
          const model = wrapLanguageModel({ model: provider(stub.url).chat("gpt-4o-mini"), middleware: memoryMiddleware({ client, userId: "hana", tokenBudget, store: false }) })
          yield* ask({ model, prompt: "Tell me about my hikes on the coastal trail." })
          const messages = (stub.requests.at(-1)!.body as { messages: Array<{ role: string; content: string }> }).messages
          return messages.find((message) => message.role === "system" && message.content.startsWith(CONTEXT_HEADING))!.content.slice(CONTEXT_HEADING.length + 1)
        })
      const small = yield* blockOf(100)
      const large = yield* blockOf(2_000)
      // The service renders at most four characters a token of budget.
      expect(small.length).toBeLessThanOrEqual(400)
      expect(large.length).toBeGreaterThan(400)
      expect(large.length).toBeLessThanOrEqual(8_000)
    }), TIMEOUT)

  it.scopedLive("is off for a call that opts out: no context in its prompt and nothing stored", () =>
    Effect.gen(function*() {
      const { stub, client, server } = yield* memoryWorld()
      yield* ingestTurn(server.baseUrl, "carol", "I play the cello in an orchestra.")
      const model = wrapLanguageModel({ model: provider(stub.url).chat("gpt-4o-mini"), middleware: memoryMiddleware({ client, userId: "carol" }) })

      yield* ask({ model, prompt: "I also like jazz and the cello.", providerOptions: { memory: { enabled: false } } })
      expect(agentCalls(stub).at(-1)).not.toContain(CONTEXT_HEADING)
      yield* ask({ model, prompt: "My cat is called Miso." })
      expect(agentCalls(stub).at(-1)).toContain(CONTEXT_HEADING)
      yield* Effect.promise(() => client.settled())
      expect((yield* recalled(client, "carol", "cat Miso")).join("\n")).toContain("Miso")
      expect((yield* recalled(client, "carol", "jazz")).filter((content) => content.includes("jazz"))).toEqual([])
    }), TIMEOUT)

  it.scopedLive("keeps each call to its own user when one model serves two users at once", () =>
    Effect.gen(function*() {
      const { stub, client, server } = yield* memoryWorld()
      yield* ingestTurn(server.baseUrl, "alice", "I live in Lisbon near the river.")
      yield* ingestTurn(server.baseUrl, "bob", "I live in Oslo near the fjord.")
      const model = wrapLanguageModel({ model: provider(stub.url).chat("gpt-4o-mini"), middleware: memoryMiddleware({ client }) })
      const asking = (userId: string) => ask({ model, prompt: "Where do I live?", providerOptions: { memory: { userId } } })

      const [alice, bob] = yield* Effect.all([asking("alice"), asking("bob")], { concurrency: 2 })
      expect(alice.text).toContain("Lisbon")
      expect(alice.text).not.toContain("Oslo")
      expect(bob.text).toContain("Oslo")
      expect(bob.text).not.toContain("Lisbon")
      yield* Effect.promise(() => client.settled())
      // Each exchange was stored for its own user.
      expect((yield* recalled(client, "bob", "Lisbon river")).some((content) => content.includes("Lisbon"))).toBe(false)
      expect((yield* recalled(client, "alice", "Oslo fjord")).some((content) => content.includes("Oslo"))).toBe(false)
    }), TIMEOUT)

  it.scopedLive("answers without memory when the service is down or never answers, and says so", () =>
    Effect.gen(function*() {
      const { stub } = yield* memoryWorld()
      for (const url of [yield* closedPortUrl, yield* silentServerUrl]) {
        const { client, lines } = adapterClient(url, 300)
        const model = wrapLanguageModel({ model: provider(stub.url).chat("gpt-4o-mini"), middleware: memoryMiddleware({ client, userId: "dave" }) })
        const answer = yield* ask({ model, prompt: "I like tea." })
        expect(answer.text).toBe("Noted: I like tea.")
        expect(client.stats.degraded).toBe(1)
        expect(lines[0]).toMatch(/^memory-service: context skipped, answering without memory \((unreachable|timeout): /)
        yield* Effect.promise(() => client.settled())
        expect(client.stats.storeFailures).toBe(1)
      }
    }), TIMEOUT)

  it.scopedLive("counts and logs an exchange the service could not store, and the answer stands", () =>
    Effect.gen(function*() {
      const { stub } = yield* memoryWorld()
      // A service with no LLM cannot extract facts: the exchange is refused or its job fails.
      const { client, lines } = adapterClient((yield* startServer()).baseUrl)
      const model = wrapLanguageModel({ model: provider(stub.url).chat("gpt-4o-mini"), middleware: memoryMiddleware({ client, userId: "frank" }) })
      expect((yield* ask({ model, prompt: "I like tea." })).text).toBe("Noted: I like tea.")
      yield* Effect.promise(() => client.settled())
      expect(client.stats).toMatchObject({ degraded: 0, storeFailures: 1 })
      expect(lines).toEqual([expect.stringMatching(/^memory-service: could not store the exchange \(config_invalid: /)])
    }), TIMEOUT)
})

describe("the AI SDK memory tools", () => {
  it.scopedLive("remember in one conversation and recall in a later one, in the SDK's tool loop", () =>
    Effect.gen(function*() {
      const { stub, client } = yield* memoryWorld()
      const model = provider(stub.url).chat("gpt-4o-mini")
      const tools = memoryTools({ client, userId: "erin" })

      const told = yield* ask({ model, tools, stopWhen: isStepCount(3), prompt: "Remember that my passport number ends in 4471." })
      expect(told.steps[0]!.toolCalls.map((call) => call.toolName)).toEqual(["remember"])
      expect(told.text).toContain("\"ok\":true")

      const asked = yield* ask({ model, tools, stopWhen: isStepCount(3), prompt: "What does my passport number end in?" })
      expect(asked.steps[0]!.toolCalls.map((call) => call.toolName)).toEqual(["recall"])
      expect(asked.text).toContain("4471")
    }), TIMEOUT)

  it.scopedLive("answer the model with a short typed error, never a thrown one", () =>
    Effect.gen(function*() {
      const { stub, client } = yield* memoryWorld()
      const model = provider(stub.url).chat("gpt-4o-mini")
      const down = adapterClient(yield* closedPortUrl, 300)
      const asked = yield* ask({ model, tools: memoryTools({ client: down.client, userId: "erin" }), stopWhen: isStepCount(3), prompt: "What is my name?" })
      expect(asked.steps[0]!.toolResults[0]!.output).toMatchObject({ ok: false, error: { code: "unreachable" } })
      expect(down.client.stats.toolErrors).toBe(1)

      const forgot = yield* Effect.promise(() => Promise.resolve(memoryTools({ client, userId: "erin" }).forget.execute!({ id: "mem_unknown" }, { toolCallId: "c1", messages: [], context: {} })))
      expect(forgot).toEqual({ ok: false, error: { code: "not_found", message: "no memory mem_unknown for this user" } })
    }), TIMEOUT)

  it.scopedLive("act for the user they were made for, whatever user the model names", () =>
    Effect.gen(function*() {
      // A model that tries to read another user's memories by naming them in its arguments.
      const { stub, server, client } = yield* memoryWorld((request) => {
        const recall = request.tools.find((tool) => tool.name === "recall")!
        return request.items.at(-1)!.kind === "result"
          ? { text: `From memory: ${request.items.filter((item) => item.kind === "result").map((item) => item.kind === "result" ? item.output : "").join(" ")}` }
          : { calls: [{ name: "recall", arguments: { ...argumentsFor(recall, lastUserText(request.items)), user_id: "alice" } }] }
      })
      yield* ingestTurn(server.baseUrl, "alice", "My locker code is 9312.")
      yield* ingestTurn(server.baseUrl, "bob", "My locker code is 5580.")
      const asked = yield* ask({
        model: provider(stub.url).chat("gpt-4o-mini"),
        tools: memoryTools({ client, userId: "bob" }),
        stopWhen: isStepCount(3),
        prompt: "What is my locker code?"
      })
      expect(asked.text).toContain("5580")
      expect(asked.text).not.toContain("9312")
    }), TIMEOUT)
})
