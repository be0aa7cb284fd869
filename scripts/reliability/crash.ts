/**
 * Crash safety, long run: the compiled service is killed with SIGKILL at random moments while
 * clients ingest (sync and async, verbatim and extracted through the loopback LLM stub), correct
 * and archive; it prints starts, kills, acknowledged and lost writes, and exits 1 on any problem.
 *
 * Usage: npm run crash [-- --kills 30 --clients 8 --users 5 --seed 7]
 */
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { startProviderStub } from "../stubs/llm-providers.js"
import { arg, BENCH_KEY, startService } from "../bench/support.js"
import { runCrashLoop } from "./crashLoop.js"

const KILLS = arg("kills", 30)
const CLIENTS = arg("clients", 8)
const USERS = arg("users", 5)
const SEED = arg("seed", Date.now() % 100_000)

const stub = await startProviderStub({ provider: "openai" })
const dataRoot = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "memory-crash-"))
const started = Date.now()
try {
  const report = await runCrashLoop({
    kills: KILLS,
    clients: CLIENTS,
    users: USERS,
    uptimeMs: [300, 2_500],
    seed: SEED,
    apiKey: BENCH_KEY,
    dataRoot,
    start: () =>
      startService(dataRoot, {
        SERVICE_LLM_PROVIDER: "openai",
        SERVICE_LLM_API_KEY: "stub-key",
        SERVICE_LLM_BASE_URL: stub.url
      }),
    progress: (line) => console.error(line)
  })
  console.log(`crash safety (seed ${SEED}, ${CLIENTS} clients, ${USERS} users, ${((Date.now() - started) / 1000).toFixed(1)} s)`)
  console.log(`  starts ${report.starts}, SIGKILLs ${report.kills}, requests ${report.requests}`)
  console.log(`  acknowledged writes ${report.acknowledged}, cut off by a kill ${report.cutOff}`)
  console.log(`  lost writes ${report.lostWrites}, duplicated ${report.duplicatedWrites}, jobs not finished ${report.jobsNotFinished}`)
  console.log(`  integrity_check failures ${report.integrityFailures}, slowest restart ${report.slowestRestartMs} ms, clean final stop ${report.cleanStop}`)
  for (const problem of report.problems.slice(0, 20)) console.log(`  problem: ${problem}`)
  process.exitCode = report.problems.length === 0 ? 0 : 1
} finally {
  await stub.close()
  NodeFs.rmSync(dataRoot, { recursive: true, force: true })
}
