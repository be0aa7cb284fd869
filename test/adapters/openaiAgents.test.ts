import { describe, expect, it } from "@effect/vitest"
import { Agent, OpenAIProvider, Runner } from "@openai/agents"
import { Effect } from "effect"
import type { MemoryClient } from "../../src/adapters/core/client.js"
import { CONTEXT_HEADING, memoryInstructions, type MemoryRunContext, memoryTools } from "../../src/adapters/openai-agents/index.js"
import { adapterClient, agentCalls, closedPortUrl, memoryWorld, silentServerUrl } from "../support/adapters.js"
import { ingestTurn } from "../support/server.js"

const TIMEOUT = 120_000

/** A runner whose model is the stub, over the SDK's default API (Responses), with tracing off (it would export to OpenAI). */
const stubRunner = (baseURL: string) =>
  new Runner({ modelProvider: new OpenAIProvider({ baseURL, apiKey: "stub-key-agents" }), tracingDisabled: true })

/** One agent for every user: the run's context names the user and the query. */
const memoryAgent = (client: MemoryClient) =>
  new Agent<MemoryRunContext>({
    name: "Assistant",
    model: "gpt-4o-mini",
    instructions: memoryInstructions({ client, instructions: "You are a helpful assistant." }),
    tools: memoryTools({ client })
  })

const runFor = (runner: Runner, agent: Agent<MemoryRunContext>, userId: string, input: string) =>
  Effect.promise(() => runner.run(agent, input, { context: { userId, query: input } }))

describe("the OpenAI Agents memory", () => {
  it.scopedLive("remembers in one run and recalls in a later one, with the context block in the instructions", () =>
    Effect.gen(function*() {
      const { stub, client } = yield* memoryWorld()
      const runner = stubRunner(stub.url)
      const agent = memoryAgent(client)

      const told = yield* runFor(runner, agent, "alice", "Remember that my flight leaves from gate B12.")
      expect(told.finalOutput).toContain("\"ok\":true")

      const asked = yield* runFor(runner, agent, "alice", "Which gate does my flight leave from?")
      expect(asked.finalOutput).toContain("B12")
      const calls = agentCalls(stub)
      expect(stub.requests.at(-1)!.path).toBe("/v1/responses")
      // The later run's instructions carried the context block, tool loop or not.
      expect(JSON.parse(calls.at(-1)!).instructions).toContain(CONTEXT_HEADING)
      expect(JSON.parse(calls.at(-1)!).instructions).toContain("B12")
      expect(client.stats.degraded).toBe(0)
    }), TIMEOUT)

  it.scopedLive("keeps two users of one agent apart when they run at once", () =>
    Effect.gen(function*() {
      const { stub, server, client } = yield* memoryWorld()
      yield* ingestTurn(server.baseUrl, "alice", "My locker code is 9312.")
      yield* ingestTurn(server.baseUrl, "bob", "My locker code is 5580.")
      const runner = stubRunner(stub.url)
      const agent = memoryAgent(client)
      const [alice, bob] = yield* Effect.all([
        runFor(runner, agent, "alice", "What is my locker code?"),
        runFor(runner, agent, "bob", "What is my locker code?")
      ], { concurrency: 2 })
      expect(alice.finalOutput).toContain("9312")
      expect(alice.finalOutput).not.toContain("5580")
      expect(bob.finalOutput).toContain("5580")
      expect(bob.finalOutput).not.toContain("9312")
    }), TIMEOUT)

  it.scopedLive("answers without memory when the service is down or never answers, and says so", () =>
    Effect.gen(function*() {
      const { stub } = yield* memoryWorld()
      const runner = stubRunner(stub.url)
      for (const url of [yield* closedPortUrl, yield* silentServerUrl]) {
        const { client, lines } = adapterClient(url, 300)
        const answer = yield* runFor(runner, memoryAgent(client), "dave", "What do I like?")
        // Instructions went without the block; the recall tool answered with a typed error the model read.
        expect(client.stats).toMatchObject({ degraded: 1, toolErrors: 1 })
        expect(lines[0]).toMatch(/^memory-service: context skipped, answering without memory \((unreachable|timeout): /)
        expect(answer.finalOutput).toMatch(/^From memory: \{"ok":false,"error":\{"code":"(unreachable|timeout)"/)
      }
    }), TIMEOUT)

  it.scopedLive("answers a tool call in a run that names no user with a typed error", () =>
    Effect.gen(function*() {
      const { stub, client } = yield* memoryWorld()
      const agent = new Agent({ name: "Assistant", model: "gpt-4o-mini", instructions: "You are a helpful assistant.", tools: memoryTools({ client }) })
      const answer = yield* Effect.promise(() => stubRunner(stub.url).run(agent, "What is my name?"))
      expect(answer.finalOutput).toContain("\"code\":\"no_user\"")
    }), TIMEOUT)
})
