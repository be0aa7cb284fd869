/**
 * Crash safety, long runs against the compiled service; each prints its figures and exits 1 on
 * any problem.
 *
 * - the embedded SQLite backend, one process SIGKILLed at random moments (the default);
 * - `--backend postgres`: replicas on one database of a throwaway cluster, one of them SIGKILLed
 *   and restarted each cycle while the others serve;
 * - `--backend postgres --pg-restarts N`: the replicas stay up and the cluster is halted and
 *   started again N times under them.
 *
 * Each service process's output (its JSON log lines) is kept in a directory under the OS temp
 * directory, one file per process start, with the PostgreSQL server's log; the report names it,
 * and names the request id and log file of every 5xx answer other than 503.
 *
 * Usage: npm run crash [-- --backend postgres --replicas 2 --pg-restarts 10 --kills 30 --clients 8 --users 5 --seed 7]
 */
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { startCluster } from "../postgres/cluster.js"
import { arg, BENCH_KEY, startService, textArg } from "../bench/support.js"
import type { CrashLoopReport } from "./crashLoop.js"
import { type CrashRunSettings, databaseOutageRun, replicaKillRun, sqliteCrashRun } from "./crashRuns.js"

const BACKEND = textArg("backend", "sqlite")
const REPLICAS = arg("replicas", 2)
const PG_RESTARTS = arg("pg-restarts", 0)
const CLIENTS = arg("clients", 8)
const USERS = arg("users", 5)
const SEED = arg("seed", Date.now() % 100_000)
const LOG_DIR = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), `memory-crash-logs-${SEED}-`))

const settings = (cycles: number, uptimeMs: readonly [number, number]): CrashRunSettings => ({
  cycles,
  clients: CLIENTS,
  users: USERS,
  uptimeMs,
  seed: SEED,
  apiKey: BENCH_KEY,
  launch: (dataRoot, env, logFile) => startService(dataRoot, env, logFile === undefined ? {} : { logFile }),
  logDir: LOG_DIR,
  progress: (line) => console.error(line)
})

const postgresRun = async (): Promise<[string, CrashLoopReport]> => {
  // Durable like a real server: a halt is then a crash of the database, not of its page cache.
  const cluster = await startCluster({ fsync: true })
  try {
    if (PG_RESTARTS > 0) {
      const run = { ...settings(PG_RESTARTS, [1_000, 4_000]), cluster, replicas: REPLICAS, downMs: [500, 3_000] as const }
      return [`PostgreSQL restarts under ${REPLICAS} replicas`, await databaseOutageRun(run)]
    }
    const run = { ...settings(arg("kills", 30), [300, 2_500]), clusterUrl: cluster.url, replicas: REPLICAS }
    return [`${REPLICAS} replicas on PostgreSQL, one SIGKILLed a cycle`, await replicaKillRun(run)]
  } finally {
    try {
      NodeFs.copyFileSync(cluster.log, NodePath.join(LOG_DIR, "postgresql.log"))
    } finally {
      cluster.stop()
    }
  }
}

/** The distinct ERROR messages of the PostgreSQL server's log, each with how often it was logged. */
const databaseErrors = () => {
  const file = NodePath.join(LOG_DIR, "postgresql.log")
  const counts = new Map<string, number>()
  if (!NodeFs.existsSync(file)) return counts
  for (const line of NodeFs.readFileSync(file, "utf8").split("\n")) {
    const message = /\bERROR:\s+(.*)$/.exec(line)?.[1]
    if (message !== undefined) counts.set(message, (counts.get(message) ?? 0) + 1)
  }
  return counts
}

const started = Date.now()
const [title, report] = BACKEND === "postgres"
  ? await postgresRun()
  : ["crash safety, SQLite", await sqliteCrashRun(settings(arg("kills", 30), [300, 2_500]))] as const
console.log(`${title} (seed ${SEED}, ${CLIENTS} clients, ${USERS} users, ${((Date.now() - started) / 1000).toFixed(1)} s)`)
console.log(`  starts ${report.starts}, SIGKILLs ${report.kills}, database restarts ${report.outages}, requests ${report.requests}`)
console.log(`  acknowledged writes ${report.acknowledged}, cut off by a kill ${report.cutOff}, refused with 503 ${report.refused}`)
console.log(`  lost writes ${report.lostWrites}, duplicated ${report.duplicatedWrites}, jobs not finished ${report.jobsNotFinished}`)
console.log(`  integrity failures ${report.integrityFailures}, slowest restart ${report.slowestRestartMs} ms, slowest recovery ${report.slowestRecoveryMs} ms`)
console.log(`  slowest answer ${report.slowestAnswerMs} ms, clean final stop ${report.cleanStop}`)
console.log(`  5xx answers other than 503: ${report.serverErrors.length}`)
for (const error of report.serverErrors) {
  console.log(`    ${error.method} ${error.route} ${error.status}, request ${error.requestId}${error.log === undefined ? "" : ` in ${error.log}`}: ${error.body}`)
}
if (BACKEND === "postgres") {
  const errors = databaseErrors()
  console.log(`  errors in the PostgreSQL log: ${[...errors.values()].reduce((sum, n) => sum + n, 0)}`)
  for (const [message, n] of [...errors].slice(0, 10)) console.log(`    ${n} x ${message.slice(0, 200)}`)
}
for (const problem of report.problems.slice(0, 20)) console.log(`  problem: ${problem}`)
if (report.problems.length > 20) console.log(`  ... and ${report.problems.length - 20} more problems`)
console.log(`  service logs (one file per process start): ${LOG_DIR}`)
process.exitCode = report.problems.length === 0 ? 0 : 1
