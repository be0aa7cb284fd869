/**
 * What the AI SDK middleware costs a model call, and how fast it gives up on a service that
 * cannot answer. Against the OpenAI stub (in this process) and the service's build (its own
 * process), with a user of `--turns` stored turns:
 *
 * - overhead: the same `generateText` call without and with the middleware (context block read
 *   before the call, exchange stored in the background, verbatim), interleaved, `--calls` each;
 * - degrade: the call with the middleware when the service is down (a closed port) and when it
 *   never answers (a loopback server that accepts and stays silent), `--degrade-calls` each, with
 *   the client's timeout at `--timeout-ms`; the call without the middleware is their floor.
 *
 * Run: npm run bench:adapters [-- --calls 200 --turns 200 --timeout-ms 500 --degrade-calls 10]
 */
import { createOpenAI } from "@ai-sdk/openai"
import { generateText, type LanguageModel, wrapLanguageModel } from "ai"
import * as NodeFs from "node:fs"
import * as NodeNet from "node:net"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { startProviderStub } from "../stubs/llm-providers.js"
import { memoryClient, memoryMiddleware } from "../../src/adapters/ai-sdk/index.js"
import { arg, BENCH_KEY, postJson, startService, stats } from "./support.js"

const CALLS = arg("calls", 200)
const TURNS = arg("turns", 200)
const TIMEOUT_MS = arg("timeout-ms", 500)
const DEGRADE_CALLS = arg("degrade-calls", 10)
const WARMUP = 20

const TOPICS = ["hiking", "cello", "Porto", "ramen", "chess", "marathon", "Lisbon", "pottery", "jazz", "sailing"]
const PROMPT = "What do you remember about my hobbies like hiking and the cello?"

const timed = async (model: LanguageModel) => {
  const started = performance.now()
  await generateText({ model, prompt: PROMPT })
  return performance.now() - started
}

const row = (label: string, values: Array<number>, floor?: { readonly p50: number; readonly p99: number }) => {
  const { p50, p99 } = stats(values)
  const against = floor === undefined ? "" : `   (+${(p50 - floor.p50).toFixed(2)} ms, ×${(p50 / floor.p50).toFixed(2)} at p50; +${(p99 - floor.p99).toFixed(2)} ms at p99)`
  console.log(`${label.padEnd(58)} p50 ${p50.toFixed(2).padStart(8)} ms   p99 ${p99.toFixed(2).padStart(8)} ms${against}`)
  return { p50, p99 }
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = NodeNet.createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as NodeNet.AddressInfo
      probe.close(() => resolve(port))
    })
  })

const silentServer = () =>
  new Promise<{ readonly url: string; readonly close: () => void }>((resolve) => {
    const sockets = new Set<NodeNet.Socket>()
    const server = NodeNet.createServer((socket) => void sockets.add(socket)).listen(0, "127.0.0.1", () => {
      const { port } = server.address() as NodeNet.AddressInfo
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () => {
          for (const socket of sockets) socket.destroy()
          server.close()
        }
      })
    })
  })

const stub = await startProviderStub({ provider: "openai" })
const dataRoot = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "bench-adapters-"))
const service = await startService(dataRoot)
console.error(`service on port ${service.port}; storing ${TURNS} turns`)
try {
  for (let i = 0; i < TURNS; i += 50) {
    const messages = Array.from({ length: Math.min(50, TURNS - i) }, (_, j) => ({
      role: "user" as const,
      content: `Turn ${i + j}: I spent the weekend on ${TOPICS[(i + j) % TOPICS.length]} with friend number ${i + j}.`
    }))
    await postJson(service.port, "/v1/memories", { user_id: "bench", session_id: `s${i}`, messages, infer: false, async_mode: false })
  }
  const openai = createOpenAI({ baseURL: stub.url, apiKey: "stub-key-bench" })
  const plain = openai.chat("gpt-4o-mini")
  const client = memoryClient({ baseUrl: `http://127.0.0.1:${service.port}`, apiKey: BENCH_KEY, log: () => undefined })
  const withMemory = wrapLanguageModel({ model: plain, middleware: memoryMiddleware({ client, userId: "bench", infer: false }) })

  console.error("warming up")
  for (let i = 0; i < WARMUP; i++) {
    await timed(plain)
    await timed(withMemory)
  }
  await client.settled()
  const without: Array<number> = []
  const withIt: Array<number> = []
  const readAlone: Array<number> = []
  for (let i = 0; i < CALLS; i++) {
    without.push(await timed(plain))
    withIt.push(await timed(withMemory))
    readAlone.push((await postJson(service.port, "/v1/context", { user_id: "bench", query: PROMPT, token_budget: 1000 })).clientMs)
  }
  await client.settled()

  console.log(`AI SDK middleware, ${CALLS} interleaved calls each, user of ${TURNS} turns, context budget 1000 tokens, OpenAI stub in-process`)
  const floor = row("generateText without the middleware (floor)", without)
  row("generateText with the middleware", withIt, floor)
  row("the context read alone (POST /v1/context, for reference)", readAlone)
  console.log(`  reads that degraded: ${client.stats.degraded}, stores that failed: ${client.stats.storeFailures}`)

  console.log(`\nDegrading, ${DEGRADE_CALLS} calls each, client timeout ${TIMEOUT_MS} ms (floor: the call without the middleware, above)`)
  const down = memoryClient({ baseUrl: `http://127.0.0.1:${await freePort()}`, timeoutMs: TIMEOUT_MS, writeTimeoutMs: TIMEOUT_MS, log: () => undefined })
  const silent = await silentServer()
  const slow = memoryClient({ baseUrl: silent.url, timeoutMs: TIMEOUT_MS, writeTimeoutMs: TIMEOUT_MS, log: () => undefined })
  for (const [label, degraded] of [["service down (closed port)", down], ["service silent (never answers)", slow]] as const) {
    const model = wrapLanguageModel({ model: plain, middleware: memoryMiddleware({ client: degraded, userId: "bench", infer: false }) })
    const times: Array<number> = []
    for (let i = 0; i < DEGRADE_CALLS; i++) times.push(await timed(model))
    row(`${label}: answer without memory`, times, floor)
    await degraded.settled()
    console.log(`  reads that degraded: ${degraded.stats.degraded} of ${DEGRADE_CALLS}`)
  }
  silent.close()
} finally {
  await service.stop()
  await stub.close()
  NodeFs.rmSync(dataRoot, { recursive: true, force: true })
}
