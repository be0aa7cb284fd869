/**
 * A mixed workload as requests/s and CPU per request: concurrent clients, each bound to one user,
 * looping over sync ingests with infer=false, searches and context blocks (20/60/20 by default),
 * LoCoMo's turns as the sessions and its questions as the queries, no LLM and no embedder. Set-ups:
 * SQLite in one process; PostgreSQL (a throwaway cluster, fsync on) with one server process; and
 * with two, on different ports over the same database, the clients' requests spread between them
 * round-robin. Each starts from fresh data: every user given the same turns through the API first,
 * then a warm-up, then the timed phases: every round of the mix, then each route alone (for its own
 * CPU per request), the ingests last. A search costs more the more turns its store holds, so the
 * mix runs on stores that only the seeding and the mix itself have grown (ingests alone add some
 * 2,000 turns per user in a round of 4 s): the warm-up's ingests go to users of their own.
 *
 * The warm-up lasts until V8 has compiled what the requests run (30 s by default): in the seconds
 * that follow a 3-s warm-up its compiler threads take about a tenth of the server's CPU.
 *
 * CPU is the kernel's count (/proc): the service's processes, of it their main threads (the
 * JavaScript and what it calls synchronously; the rest is V8's compiler and collector threads and
 * the checkpoint worker), and PostgreSQL's whole cluster (the postmaster, its backends and
 * workers), over each phase, divided by the requests answered.
 *
 * With `--baseline DIR` (another checkout, built), each set-up runs both builds side by side on
 * fresh data of their own, their phases interleaved round by round, and prints the ratios. Both
 * builds get the same requests: in each phase the build that goes first runs for the phase's
 * seconds, and the other then sends each client's very same requests in the same order. Timed
 * alone, the faster build would ingest more in each phase, then search larger stores than the
 * other build does.
 *
 * The floors, in the same run: the same clients' searches against a server on the same stack with
 * none of the service's code (one HttpApi endpoint on NodeHttpServer, bundled like the service) and
 * against bare node:http, each answering a small JSON body; their CPU per request is what the stack
 * takes before the service's own work (`--floors 0` skips them).
 *
 * Usage: npm run bench:mixed [-- --clients 16 --users 8 --seconds 4 --route-seconds 2 --rounds 6
 *   --warmup 30 --mix 20,60,20 --seed-turns 1000 --replicas 1,2 --baseline /path/to/checkout --cpu-prof DIR --floors 1]
 * (or BENCH_CLIENTS, BENCH_USERS, …)
 */
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { type Cluster, createDatabase, startCluster, withClient } from "../postgres/cluster.js"
import { seededRandom } from "../reliability/random.js"
import { conversation, questions, seedConversation } from "./corpus.js"
import { bundleFloorServer } from "./floor/bundle.js"
import { mainThreadCpuMs, processCpuMs, treeCpuMs } from "./cpu.js"
import { arg, listArg, postJson, type ServiceProcess, startListening, startService, stats, textArg } from "./support.js"

const CLIENTS = arg("clients", 16)
const USERS = arg("users", 8)
// Short phases, many rounds: alternating the builds often evens out what the machine's other work
// takes from each (on SQLite, run against itself, a build measured ×1.04 and ×1.23 its own CPU
// per request in two rounds of 8 s, ×0.97 in six of 4 s).
const SECONDS = arg("seconds", 4)
const ROUTE_SECONDS = arg("route-seconds", 2)
const ROUNDS = arg("rounds", 6)
const WARMUP_SECONDS = arg("warmup", 30)
const SEED_TURNS = arg("seed-turns", 1_000)
/** PostgreSQL set-ups by their server processes; 0 runs none (SQLite alone). */
const REPLICAS = listArg("replicas", [1, 2]).filter((n) => n > 0)
const BASELINE = textArg("baseline", "")
/** A directory to write each server's CPU profile into (`node --cpu-prof`), or none. */
const CPU_PROFILES = textArg("cpu-prof", "")
const FLOORS = arg("floors", 1) > 0
const TURNS_PER_INGEST = 10
const [INGEST = 20, SEARCH = 60, CONTEXT = 20] = listArg("mix", [20, 60, 20])

const ROUTES = ["ingest", "search", "context"] as const
type Route = (typeof ROUTES)[number]
type Phase = "mix" | Route
/** The order the phases run in: the mix first, the ingests, which grow the stores most, last. */
const PHASES: ReadonlyArray<Phase> = ["mix", "search", "context", "ingest"]

const userId = (n: number) => `mixed-${n}`
/** Where the warm-up's ingests go, so that they grow no store the timed phases search. */
const warmUpUserId = (n: number) => `warm-${n}`

/** Gives every user the same SEED_TURNS turns, in sessions of 50, spread over the servers. */
const seedUsers = (servers: ReadonlyArray<ServiceProcess>) =>
  Promise.all(Array.from({ length: USERS }, (_, user) => seedConversation(servers[user % servers.length]!.port, userId(user), SEED_TURNS)))

/** One request of a client: its route and its body. */
interface Request {
  readonly route: Route
  readonly body: object
}

/** What each client sent in a phase, in order: another build's run of the phase sends the same. */
type Plan = ReadonlyArray<ReadonlyArray<Request>>

interface Run {
  readonly plan: Plan
  readonly requests: number
  readonly seconds: number
  readonly errors: number
  readonly serviceCpuMs: number
  readonly serviceMainCpuMs: number
  readonly postgresCpuMs: number
  readonly latencies: Record<Route, Array<number>>
}

/** The mix's weights, or one route alone. */
const weights = (phase: Phase): Record<Route, number> =>
  phase === "mix" ? { ingest: INGEST, search: SEARCH, context: CONTEXT } : { ingest: 0, search: 0, context: 0, [phase]: 1 }

/** A deployment under test: its server processes and, on PostgreSQL, the cluster's postmaster. */
interface Deployment {
  readonly servers: ReadonlyArray<ServiceProcess>
  readonly postgresPid: number | undefined
}

/** Whom a client's requests are for: its searches and context blocks, and its ingests. */
interface Users {
  readonly reads: string
  readonly ingests: string
}

/** The request a client sends next, drawn for the phase. */
const nextRequest = (weight: Record<Route, number>, random: () => number, users: Users, label: string, client: number, counters: { next: number; sessions: number }): Request => {
  const total = weight.ingest + weight.search + weight.context
  const roll = random() * total
  const route: Route = roll < weight.ingest ? "ingest" : roll < weight.ingest + weight.search ? "search" : "context"
  const query = questions[counters.next % questions.length]!
  return {
    route,
    body: route === "ingest"
      ? { user_id: users.ingests, session_id: `${label}-${client}-${counters.sessions++}`, infer: false, async_mode: false, messages: conversation(counters.sessions * TURNS_PER_INGEST, TURNS_PER_INGEST) }
      : { user_id: users.reads, query }
  }
}

/**
 * The clients' loop for `seconds`, or, given another run's plan, each client's requests of that
 * plan; each request goes to the next server in turn. A warm-up's ingests go to users of their own.
 */
const runPhase = async (deployment: Deployment, phase: Phase, seconds: number, label: string, replay?: Plan, warmUp = false): Promise<Run> => {
  const { servers } = deployment
  const latencies: Record<Route, Array<number>> = { ingest: [], search: [], context: [] }
  const weight = weights(phase)
  const random = seededRandom(1)
  const counters = { next: 0, sessions: 0 }
  let errors = 0
  const plan: Array<Array<Request>> = Array.from({ length: CLIENTS }, () => [])
  const serviceCpu = () => servers.reduce((sum, server) => sum + processCpuMs(server.pid), 0)
  const serviceMainCpu = () => servers.reduce((sum, server) => sum + mainThreadCpuMs(server.pid), 0)
  const postgresCpu = () => deployment.postgresPid === undefined ? 0 : treeCpuMs(deployment.postgresPid)
  const [serviceBefore, serviceMainBefore, postgresBefore] = [serviceCpu(), serviceMainCpu(), postgresCpu()]
  const started = performance.now()
  const deadline = started + seconds * 1000
  await Promise.all(Array.from({ length: CLIENTS }, async (_, client) => {
    const users: Users = { reads: userId(client % USERS), ingests: (warmUp ? warmUpUserId : userId)(client % USERS) }
    const replayed = replay?.[client]
    for (let sent = 0; replayed === undefined ? performance.now() < deadline : sent < replayed.length; sent++) {
      const { body, route } = replayed?.[sent] ?? nextRequest(weight, random, users, label, client, counters)
      plan[client]!.push({ route, body })
      const port = servers[counters.next++ % servers.length]!.port
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
  return {
    plan,
    requests,
    seconds: (performance.now() - started) / 1000,
    errors,
    serviceCpuMs: serviceCpu() - serviceBefore,
    serviceMainCpuMs: serviceMainCpu() - serviceMainBefore,
    postgresCpuMs: postgresCpu() - postgresBefore,
    latencies
  }
}

/** Runs summed over rounds. */
const combine = (a: Run | undefined, b: Run): Run => a === undefined ? b : {
  plan: b.plan,
  requests: a.requests + b.requests,
  seconds: a.seconds + b.seconds,
  errors: a.errors + b.errors,
  serviceCpuMs: a.serviceCpuMs + b.serviceCpuMs,
  serviceMainCpuMs: a.serviceMainCpuMs + b.serviceMainCpuMs,
  postgresCpuMs: a.postgresCpuMs + b.postgresCpuMs,
  latencies: { ingest: [...a.latencies.ingest, ...b.latencies.ingest], search: [...a.latencies.search, ...b.latencies.search], context: [...a.latencies.context, ...b.latencies.context] }
}

interface SetUp {
  readonly name: string
  readonly replicas: number
  readonly postgres: boolean
}

interface Build {
  readonly name: string
  readonly entry: string
}

type Results = Map<Phase, Run>

/**
 * Vacuums and analyzes each build's database, then checkpoints. Otherwise the background work one
 * build's seeding and warm-up leave (autovacuum, the checkpointer) runs during the next build's
 * first measured phase and counts as its PostgreSQL CPU: run against itself, a build measured
 * ×0.76 the PostgreSQL CPU per request of its own copy.
 */
const settle = async (cluster: Cluster, databases: ReadonlyArray<string>) => {
  for (const database of databases) await withClient(database, (client) => client.query("VACUUM ANALYZE"))
  if (databases.length > 0) await withClient(cluster.url, (client) => client.query("CHECKPOINT"))
}

/** One set-up, every build on fresh data of its own, phases interleaved between builds round by round. */
const runSetUp = async (setUp: SetUp, builds: ReadonlyArray<Build>, dataRoot: string, cluster: Cluster): Promise<Array<Results>> => {
  const deployments: Array<Deployment> = []
  const databases: Array<string> = []
  let warmUp: Run | undefined
  try {
    for (const build of builds) {
      const database = setUp.postgres ? await createDatabase(cluster.url) : undefined
      if (database !== undefined) databases.push(database)
      const env = database === undefined ? {} : { SERVICE_DATABASE_URL: database }
      const servers: Array<ServiceProcess> = []
      deployments.push({ servers, postgresPid: setUp.postgres ? cluster.pid() : undefined })
      for (let i = 0; i < setUp.replicas; i++) {
        servers.push(await startService(NodeFs.mkdtempSync(NodePath.join(dataRoot, "root-")), env, {
          entry: build.entry,
          nodeArgs: CPU_PROFILES === "" ? [] : ["--cpu-prof", `--cpu-prof-dir=${CPU_PROFILES}`]
        }))
      }
      await seedUsers(servers)
      warmUp = await runPhase(deployments.at(-1)!, "mix", WARMUP_SECONDS, "warm", warmUp?.plan, true)
    }
    await settle(cluster, databases)
    const results: Array<Results> = builds.map(() => new Map())
    for (const phase of PHASES) {
      for (let round = 0; round < ROUNDS; round++) {
        // Alternate which build goes first, so neither always follows the other's writes.
        const order = round % 2 === 0 ? deployments.map((_, i) => i) : deployments.map((_, i) => i).reverse()
        let first: Run | undefined
        for (const i of order) {
          const run = await runPhase(deployments[i]!, phase, phase === "mix" ? SECONDS : ROUTE_SECONDS, `${phase}-r${round}`, first?.plan)
          first ??= run
          results[i]!.set(phase, combine(results[i]!.get(phase), run))
        }
      }
    }
    return results
  } finally {
    await Promise.all(deployments.flatMap((deployment) => deployment.servers.map((server) => server.stop())))
  }
}

interface Floor {
  readonly name: string
  readonly source: "effectServer" | "nodeServer"
}

const FLOOR_SERVERS: ReadonlyArray<Floor> = [
  { name: "HttpApi + NodeHttpServer", source: "effectServer" },
  { name: "node:http", source: "nodeServer" }
]

/** Each floor server's searches, interleaved round by round like the builds' phases. */
const runFloors = async (dataRoot: string): Promise<Array<Run>> => {
  const deployments: Array<Deployment> = []
  try {
    for (const floor of FLOOR_SERVERS) {
      const server = await startListening([await bundleFloorServer(floor.source, dataRoot)], { SERVICE_PORT: "0" })
      deployments.push({ servers: [server], postgresPid: undefined })
      await runPhase(deployments.at(-1)!, "search", WARMUP_SECONDS, "warm")
    }
    const results: Array<Run | undefined> = deployments.map(() => undefined)
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, deployment] of deployments.entries()) results[i] = combine(results[i], await runPhase(deployment, "search", ROUTE_SECONDS, `r${round}`))
    }
    return results.filter((run) => run !== undefined)
  } finally {
    await Promise.all(deployments.flatMap((deployment) => deployment.servers.map((server) => server.stop())))
  }
}

const perRequest = (ms: number, requests: number) => requests === 0 ? 0 : ms / requests
const fixed = (value: number, digits: number, width: number) => value.toFixed(digits).padStart(width)

const main = async () => {
  const builds: ReadonlyArray<Build> = [
    ...(BASELINE === "" ? [] : [{ name: "baseline", entry: NodePath.resolve(BASELINE, "dist/main.js") }]),
    { name: BASELINE === "" ? "this" : "this build", entry: "dist/main.js" }
  ]
  const setUps: ReadonlyArray<SetUp> = [
    { name: "SQLite", replicas: 1, postgres: false },
    ...REPLICAS.map((replicas) => ({ name: "PostgreSQL", replicas, postgres: true }))
  ]
  const dataRoot = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "bench-mixed-"))
  const cluster = await startCluster({ fsync: true })
  const results: Array<{ readonly setUp: SetUp; readonly byBuild: Array<Results> }> = []
  let floors: Array<Run> = []
  try {
    if (FLOORS) floors = await runFloors(dataRoot)
    for (const setUp of setUps) results.push({ setUp, byBuild: await runSetUp(setUp, builds, dataRoot, cluster) })
  } finally {
    cluster.stop()
    NodeFs.rmSync(dataRoot, { recursive: true, force: true })
  }
  console.log(`mixed workload: ${CLIENTS} clients over ${USERS} users, ingest/search/context ${INGEST}/${SEARCH}/${CONTEXT} ` +
    `(ingests of ${TURNS_PER_INGEST} turns, infer=false, sync; no embedder), ${ROUNDS} rounds of ${SECONDS} s of the mix and ${ROUTE_SECONDS} s of each route alone, ` +
    `after ${WARMUP_SECONDS} s of warm-up and ${SEED_TURNS} turns per user` +
    (builds.length > 1 ? " (each phase timed on the build that goes first in its round; the other sends the same requests)" : "") +
    `; ${NodeOs.cpus().length} cores shared by the servers, the database and the clients; client-side times`)
  console.log("CPU ms per request: svc = the service's processes, main = of it their main threads, pg = the PostgreSQL cluster's (kernel counts from /proc); cores = CPU used per second of wall time")
  console.log("backend     replicas  build        req/s  errors  svc ms  main  pg ms  cores   ingest svc/pg   search svc/pg  context svc/pg   ingest p50/p99   search p50/p99  context p50/p99")
  for (const { byBuild, setUp } of results) {
    for (const [i, phases] of byBuild.entries()) {
      const mix = phases.get("mix")!
      const routeCpu = ROUTES.map((route) => {
        const run = phases.get(route)!
        return `${fixed(perRequest(run.serviceCpuMs, run.requests), 2, 6)} / ${fixed(perRequest(run.postgresCpuMs, run.requests), 2, 5)}`.padStart(15)
      })
      const latencies = ROUTES.map((route) => {
        const { p50, p99 } = stats(mix.latencies[route])
        return `${p50.toFixed(1)} / ${p99.toFixed(1)}`.padStart(15)
      })
      console.log(`${setUp.name.padEnd(11)} ${String(setUp.replicas).padStart(8)}  ${builds[i]!.name.padEnd(10)} ${fixed(mix.requests / mix.seconds, 0, 7)}  ${String(mix.errors).padStart(6)}` +
        `  ${fixed(perRequest(mix.serviceCpuMs, mix.requests), 2, 6)}  ${fixed(perRequest(mix.serviceMainCpuMs, mix.requests), 2, 4)}  ${fixed(perRequest(mix.postgresCpuMs, mix.requests), 2, 5)}  ${fixed((mix.serviceCpuMs + mix.postgresCpuMs) / 1000 / mix.seconds, 2, 5)}` +
        `  ${routeCpu.join(" ")}  ${latencies.join("  ")}`)
    }
    if (byBuild.length === 2) {
      const [before, after] = byBuild.map((phases) => phases.get("mix")!) as [Run, Run]
      const ratio = (f: (run: Run) => number) => (f(after) / Math.max(f(before), 1e-9)).toFixed(2)
      console.log(`${"".padEnd(21)}this build ÷ baseline: req/s ×${ratio((run) => run.requests / run.seconds)}, ` +
        `service CPU per request ×${ratio((run) => perRequest(run.serviceCpuMs, run.requests))}` +
        (setUp.postgres ? `, PostgreSQL CPU per request ×${ratio((run) => perRequest(run.postgresCpuMs, run.requests))}` : ""))
    }
  }
  if (floors.length > 0) {
    const searchMs = (phases: Results | undefined) => {
      const run = phases?.get("search")
      return run === undefined ? 0 : perRequest(run.serviceCpuMs, run.requests)
    }
    const sqlite = results.find(({ setUp }) => !setUp.postgres)?.byBuild
    console.log(`floors: the same clients' searches (${ROUNDS} rounds of ${ROUTE_SECONDS} s) against a server answering a small JSON body with none of the service's code`)
    console.log("server                      req/s  svc ms  (the service's search on SQLite, svc ms ÷ this floor's" + (sqlite?.length === 2 ? ": baseline, this build)" : ")"))
    for (const [i, run] of floors.entries()) {
      const floorMs = perRequest(run.serviceCpuMs, run.requests)
      const ratios = (sqlite ?? []).map((phases) => `×${(searchMs(phases) / Math.max(floorMs, 1e-9)).toFixed(1)}`).join(", ")
      console.log(`${FLOOR_SERVERS[i]!.name.padEnd(26)} ${fixed(run.requests / run.seconds, 0, 6)}  ${fixed(floorMs, 2, 6)}  ${ratios}` +
        (run.errors > 0 ? `  (${run.errors} errors)` : ""))
    }
  }
}

void main()
