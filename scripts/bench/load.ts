/**
 * Load: many concurrent clients for a fixed time, mixing sync extracted ingests, search, context,
 * corrections (supersede) and archives across more users than the store cache holds, so stores
 * are opened and closed under traffic. Prints requests, errors, p50/p99 per route, the server's
 * RSS over time, and checks at the end that each user's count of current memories is exactly what
 * the clients' acknowledged writes imply. Exits 1 on any error or wrong count.
 *
 * The server runs from the compiled build; the loopback OpenAI stub plays the model.
 * Usage: npm run bench:load [-- --clients 200 --seconds 60 --users 50 --cache 16 --delay 0]
 */
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { startProviderStub } from "../stubs/llm-providers.js"
import { seededRandom } from "../reliability/random.js"
import { arg, BENCH_KEY, percentile, startService } from "./support.js"

const CLIENTS = arg("clients", 200)
const SECONDS = arg("seconds", 60)
const USERS = arg("users", 50)
const CACHE = arg("cache", 16)
const DELAY_MS = arg("delay", 0)
const SEED = arg("seed", 1)
const RSS_EVERY_MS = 5_000

type Route = "ingest" | "search" | "context" | "supersede" | "archive"

const latencies = new Map<Route, Array<number>>()
const errors = new Map<string, number>()
let requests = 0

const countError = (kind: string) => errors.set(kind, (errors.get(kind) ?? 0) + 1)

const stub = await startProviderStub({ provider: "openai", delayMs: DELAY_MS })
const dataRoot = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "memory-load-"))
const service = await startService(dataRoot, {
  SERVICE_STORE_CACHE_MAX: String(CACHE),
  SERVICE_LLM_PROVIDER: "openai",
  SERVICE_LLM_API_KEY: "stub-key",
  SERVICE_LLM_BASE_URL: stub.url,
  SERVICE_LLM_CONCURRENCY: "16"
})
const base = `http://127.0.0.1:${service.port}`

/** One timed request; anything but the expected status counts as an error of its route. */
const timed = async (route: Route, method: string, path: string, body?: unknown) => {
  const started = performance.now()
  requests++
  try {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${BENCH_KEY}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const parsed = await response.json() as Record<string, unknown>
    const bucket = latencies.get(route) ?? []
    bucket.push(performance.now() - started)
    latencies.set(route, bucket)
    if (response.status !== 200) {
      countError(`${route} ${response.status} ${String(parsed.code)}`)
      return undefined
    }
    return parsed
  } catch (error) {
    countError(`${route} network ${error instanceof Error ? error.message : "failure"}`)
    return undefined
  }
}

/** What a client knows it stored: one current memory per live token. */
interface ClientState {
  readonly userId: string
  readonly live: Array<string>
  next: number
}

const clients: Array<ClientState> = Array.from({ length: CLIENTS }, (_, c) => ({ userId: `load_u${c % USERS}`, live: [], next: 0 }))
const random = seededRandom(SEED)

const findFact = async (client: ClientState, token: string) => {
  const found = await timed("search", "POST", "/v1/search", { user_id: client.userId, query: token, top_k: 5 })
  const hits = (found?.hits ?? []) as Array<{ content: string; metadata: { fact_id?: unknown } }>
  const factId = hits.find((hit) => typeof hit.metadata.fact_id === "string" && hit.content.includes(token))?.metadata.fact_id
  if (found !== undefined && typeof factId !== "string") countError("search missed a memory its client stored")
  return typeof factId === "string" ? factId : undefined
}

const step = async (client: ClientState, index: number) => {
  const roll = random()
  const token = client.live[Math.floor(random() * client.live.length)]
  if (roll < 0.3 || token === undefined) {
    const fresh = `Ld${index}n${client.next++}z`
    const stored = await timed("ingest", "POST", "/v1/memories", {
      user_id: client.userId,
      async_mode: false,
      infer: true,
      messages: [{ role: "user", content: `${fresh} is my favourite word.` }]
    })
    if (stored?.facts_extracted === 1) client.live.push(fresh)
    else if (stored !== undefined) countError(`ingest extracted ${String(stored.facts_extracted)} facts`)
  } else if (roll < 0.55) {
    await timed("search", "POST", "/v1/search", { user_id: client.userId, query: "favourite word", top_k: 10 })
  } else if (roll < 0.75) {
    await timed("context", "GET", `/v1/context?user_id=${client.userId}&query=${encodeURIComponent(token)}&token_budget=1000`)
  } else {
    const factId = await findFact(client, token)
    if (factId === undefined) return
    const path = `/v1/memories/${encodeURIComponent(factId)}`
    if (roll < 0.875) {
      await timed("supersede", "PATCH", path, { user_id: client.userId, content: `${token} is my favourite word since ${index}.` })
    } else {
      const archived = await timed("archive", "DELETE", `${path}?user_id=${client.userId}`)
      if (archived?.deleted === true) client.live.splice(client.live.indexOf(token), 1)
      else if (archived !== undefined) countError("archive of a current memory answered deleted: false")
    }
  }
}

const rssMiB = () => {
  const status = NodeFs.readFileSync(`/proc/${service.pid}/status`, "utf8")
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
}

const rss: Array<number> = [rssMiB()]
const sampler = setInterval(() => rss.push(rssMiB()), RSS_EVERY_MS)
const deadline = Date.now() + SECONDS * 1000
const started = performance.now()
await Promise.all(clients.map(async (client, c) => {
  for (let i = 0; Date.now() < deadline; i++) await step(client, c * 1_000_000 + i)
}))
const elapsedS = (performance.now() - started) / 1000
clearInterval(sampler)
rss.push(rssMiB())

// The count check: every user's current memories are exactly its clients' live tokens.
let wrongCounts = 0
for (let u = 0; u < USERS; u++) {
  const userId = `load_u${u}`
  const expected = clients.filter((client) => client.userId === userId).reduce((sum, client) => sum + client.live.length, 0)
  const listed = await fetch(`${base}/v1/memories?user_id=${userId}&limit=1`, { headers: { authorization: `Bearer ${BENCH_KEY}` } })
  const total = (await listed.json() as { total: number }).total
  if (total !== expected) {
    wrongCounts++
    console.log(`  ${userId}: ${total} current memories, expected ${expected}`)
  }
}
const errorCount = [...errors.values()].reduce((sum, n) => sum + n, 0)

console.log(`load: ${CLIENTS} clients, ${USERS} users, store cache ${CACHE}, stub delay ${DELAY_MS} ms, ${elapsedS.toFixed(1)} s`)
console.log(`  requests ${requests} (${(requests / elapsedS).toFixed(0)}/s), errors ${errorCount}, users with a wrong count ${wrongCounts}/${USERS}`)
for (const [kind, n] of errors) console.log(`  error: ${kind} × ${n}`)
console.log("  route       count   p50 ms   p99 ms")
for (const [route, values] of latencies) {
  const sorted = [...values].sort((a, b) => a - b)
  console.log(`  ${route.padEnd(10)} ${String(sorted.length).padStart(6)} ${percentile(sorted, 0.5).toFixed(1).padStart(8)} ${percentile(sorted, 0.99).toFixed(1).padStart(8)}`)
}
console.log(`  RSS MiB every ${RSS_EVERY_MS / 1000} s: ${rss.map((value) => value.toFixed(0)).join(" ")}`)
const third = Math.max(1, Math.floor(rss.length / 3))
const mean = (values: ReadonlyArray<number>) => values.reduce((sum, v) => sum + v, 0) / values.length
console.log(`  RSS mean first third ${mean(rss.slice(1, 1 + third)).toFixed(0)} MiB, last third ${mean(rss.slice(-third)).toFixed(0)} MiB`)

await service.stop()
await stub.close()
NodeFs.rmSync(dataRoot, { recursive: true, force: true })
process.exitCode = errorCount === 0 && wrongCounts === 0 ? 0 : 1
