/**
 * A mixed workload as requests/s: concurrent clients, each bound to one user, looping over sync
 * ingests with infer=false, searches and context blocks (20/60/20 by default), LoCoMo's turns as
 * the sessions and its questions as the queries, no LLM and no embedder. Three set-ups in one
 * run: SQLite in one process; PostgreSQL (a throwaway cluster, fsync on) with one server process;
 * and with two, on different ports over the same database, the clients' requests spread between
 * them round-robin. Each starts from fresh data: every user given the same turns through the API
 * first, then a warm-up, then the timed run.
 *
 * Usage: npm run bench:mixed [-- --clients 16 --users 8 --seconds 20 --warmup 3 --mix 20,60,20 --seed-turns 1000]
 * (or BENCH_CLIENTS, BENCH_USERS, …)
 */
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { createDatabase, startCluster } from "../postgres/cluster.js"
import { seededRandom } from "../reliability/random.js"
import { questions, sentences } from "./corpus.js"
import { arg, listArg, postJson, type ServiceProcess, startService, stats } from "./support.js"

const CLIENTS = arg("clients", 16)
const USERS = arg("users", 8)
const SECONDS = arg("seconds", 20)
const WARMUP_SECONDS = arg("warmup", 3)
const SEED_TURNS = arg("seed-turns", 1_000)
const TURNS_PER_INGEST = 10
const [INGEST = 20, SEARCH = 60, CONTEXT = 20] = listArg("mix", [20, 60, 20])

const ROUTES = ["ingest", "search", "context"] as const
type Route = (typeof ROUTES)[number]

const userId = (n: number) => `mixed-${n}`

/** `count` turns of LoCoMo from `offset` on, as messages. */
const messages = (offset: number, count: number) =>
  Array.from({ length: count }, (_, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content: sentences[(offset + i) % sentences.length]! }))

/** Gives every user the same SEED_TURNS turns, in sessions of 50, spread over the servers. */
const seedUsers = (servers: ReadonlyArray<ServiceProcess>) =>
  Promise.all(Array.from({ length: USERS }, async (_, user) => {
    for (let from = 0; from < SEED_TURNS; from += 50) {
      await postJson(servers[user % servers.length]!.port, "/v1/memories", {
        user_id: userId(user), session_id: `seed-${from}`, infer: false, async_mode: false, messages: messages(from, Math.min(50, SEED_TURNS - from))
      })
    }
  }))

interface Run {
  readonly requests: number
  readonly seconds: number
  readonly errors: number
  readonly latencies: Record<Route, Array<number>>
}

/** The clients' loop for `seconds`; each request goes to the next server in turn. */
const runMix = async (servers: ReadonlyArray<ServiceProcess>, seconds: number, label: string): Promise<Run> => {
  const latencies: Record<Route, Array<number>> = { ingest: [], search: [], context: [] }
  const total = INGEST + SEARCH + CONTEXT
  const random = seededRandom(1)
  let next = 0
  let errors = 0
  let sessions = 0
  const started = performance.now()
  const deadline = started + seconds * 1000
  await Promise.all(Array.from({ length: CLIENTS }, async (_, client) => {
    const user = userId(client % USERS)
    while (performance.now() < deadline) {
      const roll = random() * total
      const route: Route = roll < INGEST ? "ingest" : roll < INGEST + SEARCH ? "search" : "context"
      const query = questions[next % questions.length]!
      const port = servers[next++ % servers.length]!.port
      const body = route === "ingest"
        ? { user_id: user, session_id: `${label}-${client}-${sessions++}`, infer: false, async_mode: false, messages: messages(sessions * TURNS_PER_INGEST, TURNS_PER_INGEST) }
        : { user_id: user, query }
      try {
        const { clientMs } = await postJson(port, route === "ingest" ? "/v1/memories" : `/v1/${route}`, body)
        latencies[route].push(clientMs)
      } catch (error) {
        errors++
        if (errors <= 3) console.error(`${route}: ${error instanceof Error ? error.message : String(error)}`)
      }
    }
  }))
  const requests = ROUTES.reduce((sum, route) => sum + latencies[route].length, 0)
  return { requests, seconds: (performance.now() - started) / 1000, errors, latencies }
}

interface SetUp {
  readonly name: string
  readonly replicas: number
  readonly env: () => Promise<Record<string, string>>
}

const main = async () => {
  const dataRoot = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "bench-mixed-"))
  const cluster = await startCluster({ fsync: true })
  const postgres = async () => ({ SERVICE_DATABASE_URL: await createDatabase(cluster.url) })
  const setUps: ReadonlyArray<SetUp> = [
    { name: "SQLite", replicas: 1, env: async () => ({}) },
    { name: "PostgreSQL", replicas: 1, env: postgres },
    { name: "PostgreSQL", replicas: 2, env: postgres }
  ]
  const results: Array<{ readonly setUp: SetUp; readonly run: Run }> = []
  try {
    for (const setUp of setUps) {
      const env = await setUp.env()
      const servers: Array<ServiceProcess> = []
      try {
        for (let i = 0; i < setUp.replicas; i++) {
          servers.push(await startService(NodeFs.mkdtempSync(NodePath.join(dataRoot, "root-")), { SERVICE_REQUEST_LOG_MAX: "0", ...env }))
        }
        await seedUsers(servers)
        await runMix(servers, WARMUP_SECONDS, "warm")
        results.push({ setUp, run: await runMix(servers, SECONDS, "run") })
      } finally {
        await Promise.all(servers.map((server) => server.stop()))
      }
    }
  } finally {
    cluster.stop()
    NodeFs.rmSync(dataRoot, { recursive: true, force: true })
  }
  console.log(`mixed workload: ${CLIENTS} clients over ${USERS} users, ingest/search/context ${INGEST}/${SEARCH}/${CONTEXT} ` +
    `(ingests of ${TURNS_PER_INGEST} turns, infer=false, sync; no embedder), ${SECONDS} s after ${WARMUP_SECONDS} s of warm-up, ` +
    `${SEED_TURNS} turns per user before; ${NodeOs.cpus().length} cores shared by the servers, the database and the clients; client-side times`)
  console.log("backend     replicas  requests/s   errors   ingest p50/p99 ms   search p50/p99 ms   context p50/p99 ms")
  for (const { run, setUp } of results) {
    const cells = ROUTES.map((route) => {
      const { p50, p99 } = stats(run.latencies[route])
      return `${p50.toFixed(1)} / ${p99.toFixed(1)}`.padStart(18)
    })
    console.log(`${setUp.name.padEnd(11)} ${String(setUp.replicas).padStart(8)}  ${(run.requests / run.seconds).toFixed(0).padStart(10)}  ${String(run.errors).padStart(7)}  ${cells.join("  ")}`)
  }
}

void main()
