import { Effect } from "effect"
import * as NodeNet from "node:net"
import type { StubAgentRequest, StubAgentTurn } from "../../scripts/stubs/agent.js"
import { type ProviderStub, startProviderStub } from "../../scripts/stubs/llm-providers.js"
import { memoryClient, type MemoryClient } from "../../src/adapters/core/client.js"
import { llmEnv } from "./llm.js"
import { API_KEY, startServer } from "./server.js"

/** The OpenAI stub, playing the model of the frameworks and the service's LLM, for the enclosing scope. */
export const openaiStub = (agent?: (request: StubAgentRequest) => StubAgentTurn) =>
  Effect.acquireRelease(
    Effect.promise(() => startProviderStub({ provider: "openai", ...(agent === undefined ? {} : { agent }) })),
    (stub) => Effect.promise(() => stub.close())
  )

/** An adapter connection whose notices are kept for the test to read. */
export const adapterClient = (baseUrl: string, timeoutMs?: number) => {
  const lines: Array<string> = []
  const bounds = timeoutMs === undefined ? {} : { timeoutMs, writeTimeoutMs: timeoutMs }
  const client = memoryClient({ baseUrl, apiKey: API_KEY, ...bounds, log: (line) => lines.push(line) })
  return { client, lines }
}

/** A real server whose LLM is the stub, and an adapter connection to it. */
export const memoryWorld = (agent?: (request: StubAgentRequest) => StubAgentTurn) =>
  Effect.gen(function*() {
    const stub = yield* openaiStub(agent)
    const server = yield* startServer(llmEnv(stub))
    return { stub, server, ...adapterClient(server.baseUrl) }
  })

/** A loopback address nothing listens on: connections are refused. */
export const closedPortUrl = Effect.promise(() =>
  new Promise<string>((resolve, reject) => {
    const probe = NodeNet.createServer()
    probe.on("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as NodeNet.AddressInfo
      probe.close(() => resolve(`http://127.0.0.1:${port}`))
    })
  })
)

/** A loopback server that accepts connections and never answers, for the enclosing scope. */
export const silentServerUrl = Effect.acquireRelease(
  Effect.promise(() =>
    new Promise<{ readonly url: string; readonly server: NodeNet.Server; readonly sockets: Set<NodeNet.Socket> }>((resolve, reject) => {
      const sockets = new Set<NodeNet.Socket>()
      const server = NodeNet.createServer((socket) => {
        sockets.add(socket)
        socket.on("close", () => sockets.delete(socket))
        socket.on("error", () => sockets.delete(socket))
      })
      server.on("error", reject)
      server.listen(0, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${(server.address() as NodeNet.AddressInfo).port}`, server, sockets }))
    })
  ),
  ({ server, sockets }) =>
    Effect.promise(() => {
      for (const socket of sockets) socket.destroy()
      return new Promise<void>((done) => server.close(() => done()))
    })
).pipe(Effect.map(({ url }) => url))

/** The contents of a user's search hits for a query. */
export const recalled = (client: MemoryClient, userId: string, query: string) =>
  Effect.promise(() => Effect.runPromise(client.api.retrieval.search({ payload: { user_id: userId, query, top_k: 10, include_superseded: false } }))).pipe(
    Effect.map(({ hits }) => hits.map((hit) => hit.content))
  )

/** The bodies of the agent calls the stub received (Chat Completions without structured output, and the Responses API). */
export const agentCalls = (stub: ProviderStub) =>
  stub.requests.filter((request) =>
    request.path === "/v1/responses" ||
    (request.path === "/v1/chat/completions" && typeof request.body === "object" && request.body !== null && !("response_format" in request.body))
  ).map((request) => JSON.stringify(request.body))
