/**
 * Ingest with extraction (infer=true) against the OpenAI stub answering after a fixed delay (chat
 * and embeddings alike, unless --embed-delay says otherwise):
 * sessions/s for sync (1 and 8 clients), async (jobs) and batch ingest, the service's own time per
 * session beyond the provider's (its x-response-time-ms less the stub's time; target ≤ 5 ms), and
 * the server's peak RSS during a 500-session batch. Each phase writes to a fresh user, so no phase
 * pays for a store the others filled. The one-client sync phase runs again with the stub answering
 * after a few milliseconds: the same work, on a machine that has not idled in between. Last, the
 * same sessions go through two relays that make one typical session's provider calls and nothing
 * else: a bare one (what the machine's transport alone costs) and one on the service's stack.
 *
 * The server runs from the compiled build, as `npm start` runs it; the stub runs in this process.
 * Usage: npm run bench:llm [-- --sessions 100 --delay 50 --embed-delay 50 --warm-delay 5 --concurrency 8 --batch 500]
 */
import * as NodeFs from "node:fs"
import * as NodeHttp from "node:http"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { type ProviderStub, startProviderStub, type StubRequest } from "../stubs/llm-providers.js"
import type { RelayConfig } from "./relay.js"
import { session } from "./sessions.js"
import { arg, BENCH_KEY, percentile, startListening, startService } from "./support.js"

const SESSIONS = arg("sessions", 100)
const DELAY_MS = arg("delay", 50)
const EMBED_DELAY_MS = arg("embed-delay", DELAY_MS)
const WARM_DELAY_MS = arg("warm-delay", 5)
const CONCURRENCY = arg("concurrency", 8)
const BATCH = arg("batch", 500)
const CLIENTS = 8
const WARMUP = 5
const TARGET_MS = 5
const RSS_EVERY_MS = 50

// ---- HTTP ----

// Node's http with kept-alive connections: the client's own cost per call stays near a tenth of a
// millisecond (fetch adds about half a millisecond), so it hardly counts in a session's overhead.
const agent = new NodeHttp.Agent({ keepAlive: true })

interface Reply<T> {
  readonly body: T
  /** The service's own time for the request, from its x-response-time-ms header. */
  readonly serverMs: number
}

const call = <T>(port: number, method: "GET" | "POST", path: string, body?: unknown): Promise<Reply<T>> =>
  new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const request = NodeHttp.request({
      host: "127.0.0.1",
      port,
      method,
      path,
      agent,
      headers: { authorization: `Bearer ${BENCH_KEY}`, ...(payload === undefined ? {} : { "content-type": "application/json" }) }
    }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("error", reject)
      response.on("end", () => {
        const text = Buffer.concat(chunks).toString()
        if (response.statusCode !== 200 && response.statusCode !== 202) return reject(new Error(`${method} ${path}: status ${response.statusCode}: ${text}`))
        resolve({ body: JSON.parse(text) as T, serverMs: Number(response.headers["x-response-time-ms"]) })
      })
    })
    request.on("error", reject)
    request.end(payload)
  })

interface AddResult {
  readonly facts_extracted: number
}
interface Accepted {
  readonly job_id: string
}
interface BatchResult {
  readonly succeeded: number
  readonly failed: number
}
interface Job {
  readonly status: "pending" | "running" | "succeeded" | "failed"
  readonly result: Record<string, unknown> | null
  readonly error: string | null
}

const addSession = (port: number, user: string, i: number, asyncMode: boolean) =>
  call<AddResult & Partial<Accepted>>(port, "POST", "/v1/memories", { user_id: user, ...session(i), infer: true, async_mode: asyncMode })

/**
 * Polls one job until it has succeeded; its result. Every poll is a request the server serves on
 * the same thread as the ingest, so long jobs are polled less often (5 ms polls slowed a batch by a fifth).
 */
const waitJob = async (port: number, id: string, everyMs: number) => {
  for (;;) {
    const { body: job } = await call<Job>(port, "GET", `/v1/jobs/${id}`)
    if (job.status === "succeeded") return job.result
    if (job.status === "failed") throw new Error(`job ${id} failed: ${job.error}`)
    await new Promise((r) => setTimeout(r, everyMs))
  }
}

// ---- measurements ----

/** The server's resident set in MiB, from /proc (Linux); undefined elsewhere. */
const rssMiB = (pid: number) => {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(NodeFs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]
    return kb === undefined ? undefined : Number(kb) / 1024
  } catch {
    return undefined
  }
}

/** Runs `work` while sampling the server's RSS; the peak seen. */
const withPeakRss = async <T>(pid: number, work: () => Promise<T>) => {
  let peak = rssMiB(pid)
  const sample = () => {
    const now = rssMiB(pid)
    if (now !== undefined) peak = Math.max(peak ?? 0, now)
  }
  const timer = setInterval(sample, RSS_EVERY_MS)
  try {
    const value = await work()
    sample()
    return { value, peak }
  } finally {
    clearInterval(timer)
  }
}

const isChat = (request: StubRequest) => request.path.endsWith("/chat/completions")
const isEmbed = (request: StubRequest) => request.path.endsWith("/embeddings")

interface PhaseResult {
  readonly name: string
  readonly clients: number
  readonly sessions: number
  readonly seconds: number
  readonly latencies?: ReadonlyArray<number>
}

/** One sequential sync session: the client's and the service's times, and the provider requests it made. */
interface SessionSample {
  readonly wall: number
  readonly server: number
  readonly provider: ReadonlyArray<StubRequest>
  readonly facts: number
}

/** `count` sync sessions from `clients` concurrent clients; with one client, each session's provider requests too. */
const runSync = async (port: number, stub: ProviderStub, user: string, count: number, clients: number) => {
  const latencies: Array<number> = []
  const perSession: Array<SessionSample> = []
  let next = 0
  const started = performance.now()
  await Promise.all(Array.from({ length: clients }, async () => {
    while (next < count) {
      const i = next++
      const from = stub.requests.length
      const t0 = performance.now()
      const { body: result, serverMs } = await addSession(port, user, i, false)
      const wall = performance.now() - t0
      latencies.push(wall)
      // Sequential only: then the stub's requests since `from` are this session's alone.
      if (clients === 1) perSession.push({ wall, server: serverMs, provider: stub.requests.slice(from), facts: result.facts_extracted })
    }
  }))
  const seconds = (performance.now() - started) / 1000
  return { phase: { name: "sync", clients, sessions: count, seconds, latencies } satisfies PhaseResult, perSession }
}

/**
 * After a warm-up (connections, JIT, the first store open), one-client sync sessions with the stub
 * at the benchmark's delays, then again with it answering after WARM_DELAY_MS.
 */
const runSequential = async (port: number, stub: ProviderStub, user: string) => {
  for (let i = 0; i < WARMUP; i++) await addSession(port, `${user}-warmup`, i, false)
  const atDelay = await runSync(port, stub, `${user}-1`, SESSIONS, 1)
  stub.setDelays(WARM_DELAY_MS, WARM_DELAY_MS)
  try {
    return { atDelay, atWarmDelay: await runSync(port, stub, `${user}-warm`, SESSIONS, 1) }
  } finally {
    stub.setDelays(DELAY_MS, EMBED_DELAY_MS)
  }
}

const runAsync = async (port: number, user: string, count: number): Promise<PhaseResult> => {
  const started = performance.now()
  const ids: Array<string> = []
  for (let i = 0; i < count; i++) {
    const { body: accepted } = await addSession(port, user, i, true)
    if (accepted.job_id === undefined) throw new Error("async add answered without a job id")
    ids.push(accepted.job_id)
  }
  for (const id of ids) await waitJob(port, id, 20)
  return { name: "async (jobs)", clients: 1, sessions: count, seconds: (performance.now() - started) / 1000 }
}

const batchBody = (user: string, asyncMode: boolean) => ({
  user_id: user,
  sessions: Array.from({ length: BATCH }, (_, i) => session(i)),
  infer: true,
  async_mode: asyncMode
})

const checkBatch = (result: BatchResult | Record<string, unknown> | null) => {
  const succeeded = result?.succeeded
  if (succeeded !== BATCH) throw new Error(`batch: ${String(succeeded)} of ${BATCH} sessions succeeded: ${JSON.stringify(result).slice(0, 300)}`)
}

const runBatch = async (port: number, pid: number, user: string, asyncMode: boolean) => {
  const started = performance.now()
  const { peak } = await withPeakRss(pid, async () => {
    if (!asyncMode) return checkBatch((await call<BatchResult>(port, "POST", "/v1/memories/batch", batchBody(user, false))).body)
    const { body: accepted } = await call<Accepted>(port, "POST", "/v1/memories/batch", batchBody(user, true))
    checkBatch(await waitJob(port, accepted.job_id, 100))
  })
  const phase: PhaseResult = { name: asyncMode ? "batch, async" : "batch, sync", clients: 1, sessions: BATCH, seconds: (performance.now() - started) / 1000 }
  return { phase, peak }
}

// ---- output ----

const fixed = (value: number | undefined, digits: number, width: number) => (value === undefined ? "—" : value.toFixed(digits)).padStart(width)
const mean = (values: ReadonlyArray<number>) => values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length)
const mib = (value: number | undefined) => value === undefined ? "n/a" : `${value.toFixed(0)} MiB`

const callCounts = (sessions: ReadonlyArray<SessionSample>) => {
  const range = (values: ReadonlyArray<number>) => `${mean(values).toFixed(2)} (${Math.min(...values)}–${Math.max(...values)})`
  const count = (isKind: (request: StubRequest) => boolean) => range(sessions.map((s) => s.provider.filter(isKind).length))
  return `chat calls ${count(isChat)}, embedding calls ${count(isEmbed)}, facts ${range(sessions.map((s) => s.facts))}`
}

/** Time per sequential session beyond the provider's; within one sync request the provider calls run one after another, so their sum is the provider's time. */
const overheadOf = (sessions: ReadonlyArray<SessionSample>) => {
  const providerMs = sessions.map((s) => s.provider.reduce((sum, request) => sum + request.ms, 0))
  return {
    providerMs,
    overhead: sessions.map((s, i) => s.server - providerMs[i]!).sort((a, b) => a - b),
    seenByClient: sessions.map((s, i) => s.wall - providerMs[i]!).sort((a, b) => a - b)
  }
}

const spread = (sorted: ReadonlyArray<number>) =>
  `${mean(sorted).toFixed(1)} ms mean, p50 ${percentile(sorted, 0.5).toFixed(1)}, p95 ${percentile(sorted, 0.95).toFixed(1)}`

const overheadLine = (label: string, sessions: ReadonlyArray<SessionSample>) => {
  const { overhead, providerMs, seenByClient } = overheadOf(sessions)
  return `${label}: service overhead per session beyond the provider's time ${spread(overhead)} ` +
    `(target ≤ ${TARGET_MS} ms: ${percentile(overhead, 0.5) <= TARGET_MS ? "met" : "missed"} at p50); ` +
    `the service's time ${mean(sessions.map((s) => s.server)).toFixed(1)} ms, the provider's ${mean(providerMs).toFixed(1)} ms of it; ` +
    `as the client sees it (wall − provider) ${mean(seenByClient).toFixed(1)} ms mean, p50 ${percentile(seenByClient, 0.5).toFixed(1)}`
}

/** The provider requests of the last sequential session that made the most common number of them. */
const typicalRequests = (sessions: ReadonlyArray<SessionSample>) => {
  const counts = new Map<number, number>()
  for (const s of sessions) counts.set(s.provider.length, (counts.get(s.provider.length) ?? 0) + 1)
  const [common] = [...counts].reduce((best, entry) => (entry[1] > best[1] ? entry : best))
  return [...sessions].reverse().find((s) => s.provider.length === common)!.provider
}

/** The two floors: what the machine's transport alone costs, and what the service's stack adds to it. */
const FLOORS = [
  { script: "relay.ts", label: "a bare node:http relay (the machine's floor)" },
  { script: "stack-relay.ts", label: "an HttpApi server with the openai package and the service's schemas, nothing else (the stack's floor)" }
] as const

/**
 * The same sequential sessions through a relay (scripts/bench/relay.ts or stack-relay.ts) that
 * replays one session's provider requests and nothing else: the overhead at each delay that
 * making these calls costs on this machine, without the service's own work.
 */
const runRelay = async (stub: ProviderStub, configFile: string, calls: number, floor: (typeof FLOORS)[number]) => {
  const relay = await startListening([...process.execArgv, NodePath.join(import.meta.dirname, floor.script), configFile])
  try {
    const { atDelay, atWarmDelay } = await runSequential(relay.port, stub, floor.script)
    const figure = (sessions: ReadonlyArray<SessionSample>) => spread(overheadOf(sessions).overhead)
    return `the same ${calls} provider calls through ${floor.label}: ` +
      `${figure(atDelay.perSession)} at ${DELAY_MS} ms; ${figure(atWarmDelay.perSession)} at ${WARM_DELAY_MS} ms`
  } finally {
    await relay.stop()
  }
}

const phaseLine = (r: PhaseResult) => {
  const sorted = r.latencies === undefined ? undefined : [...r.latencies].sort((a, b) => a - b)
  const p = (q: number) => sorted === undefined ? undefined : percentile(sorted, q)
  return `${r.name.padEnd(14)} ${String(r.clients).padStart(7)} ${String(r.sessions).padStart(9)} ${fixed(r.seconds, 2, 8)} ${
    fixed(r.sessions / r.seconds, 1, 11)
  } ${fixed(p(0.5), 1, 8)} ${fixed(p(0.95), 1, 8)} ${fixed(p(0.99), 1, 8)}`
}

const main = async () => {
  const dataRoot = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "bench-llm-"))
  const stub = await startProviderStub({ provider: "openai", delayMs: DELAY_MS, embedDelayMs: EMBED_DELAY_MS, dimensions: 256 })
  const server = await startService(dataRoot, {
    SERVICE_LLM_PROVIDER: "openai",
    SERVICE_LLM_API_KEY: "bench",
    SERVICE_LLM_BASE_URL: stub.url,
    SERVICE_LLM_CONCURRENCY: String(CONCURRENCY)
    // The log level stays at startService's "info": it waits for the "Listening" line, which
    // "warning" would hide; requests are logged at debug, so info adds nothing per session.
  })
  try {
    console.log(`LLM ingest benchmark: openai stub, chat answered after ${DELAY_MS} ms and embeddings after ${EMBED_DELAY_MS} ms, SERVICE_LLM_CONCURRENCY ${CONCURRENCY}, ${NodeOs.cpus().length} cores`)
    console.log(`sessions of 6 turns (3 user with 2 facts each, 3 assistant), infer=true; ${SESSIONS} per phase, ${BATCH} in a batch; each phase a fresh user`)

    const { atDelay: sequential, atWarmDelay: warm } = await runSequential(server.port, stub, "sync")
    const concurrent = await runSync(server.port, stub, "sync-8", SESSIONS, CLIENTS)
    const jobs = await runAsync(server.port, "async", SESSIONS)
    const rssBefore = rssMiB(server.pid)
    const batchSync = await runBatch(server.port, server.pid, "batch-sync", false)
    const batchAsync = await runBatch(server.port, server.pid, "batch-async", true)
    const requests = typicalRequests(warm.perSession)
    const relayConfig = NodePath.join(dataRoot, "relay.json")
    const config: RelayConfig = { stubUrl: stub.url, requests: requests.map(({ body, path }) => ({ path, body })), reply: { facts_extracted: 0 } }
    NodeFs.writeFileSync(relayConfig, JSON.stringify(config))
    const floors: Array<string> = []
    for (const floor of FLOORS) floors.push(await runRelay(stub, relayConfig, requests.length, floor))

    console.log("phase          clients  sessions  seconds  sessions/s   p50 ms   p95 ms   p99 ms")
    const warmPhase = { ...warm.phase, name: `sync, ${WARM_DELAY_MS} ms` }
    for (const r of [sequential.phase, warmPhase, concurrent.phase, jobs, batchSync.phase, batchAsync.phase]) console.log(phaseLine(r))

    console.log(`per session (sync, 1 client): ${callCounts(sequential.perSession)}`)
    console.log(overheadLine(`chat answered after ${DELAY_MS} ms, embeddings after ${EMBED_DELAY_MS} ms`, sequential.perSession))
    console.log(overheadLine(`both answered after ${WARM_DELAY_MS} ms`, warm.perSession))
    for (const floor of floors) console.log(floor)
    console.log(`server RSS: ${mib(rssBefore)} before the batches, peak ${mib(batchSync.peak)} during the sync batch, ${mib(batchAsync.peak)} during the async one`)
  } finally {
    agent.destroy()
    await server.stop()
    await stub.close()
    NodeFs.rmSync(dataRoot, { recursive: true, force: true })
  }
}

void main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
