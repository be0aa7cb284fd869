/**
 * Fuzzes the HTTP API from its OpenAPI document: valid and hostile requests for every documented
 * route against the compiled server, first with the LLM routes working (a loopback provider
 * stub), then a share without any LLM (and with purge allowed). Prints the figures and every
 * failure with its request; exits 1 on any failure, a failed after-run check or a dead server.
 *
 * Each phase runs on a fresh deployment of the chosen backend: a data root (SQLite, the default),
 * or with `--backend postgres` a database of a throwaway PostgreSQL cluster.
 *
 * Usage: npm run fuzz [-- --count 20000 --seed 1234 --concurrency 8 --no-llm-share 0.2 --backend postgres --max-body-bytes 2097152]
 * Replay one reported case with the seed its phase printed:
 *   npm run fuzz -- --phase <with-llm|no-llm> --seed <phase seed> --only <index>
 */
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { arg, BENCH_KEY, startService, textArg } from "../bench/support.js"
import { type Cluster, createDatabase, startCluster } from "../postgres/cluster.js"
import { startProviderStub } from "../stubs/llm-providers.js"
import { formatReport } from "./fuzzReport.js"
import { type FuzzReport, passed, runFuzz } from "./fuzzRunner.js"

const COUNT = arg("count", 20_000)
const SEED = arg("seed", Math.floor(Math.random() * 2 ** 31))
const CONCURRENCY = arg("concurrency", 8)
const NO_LLM_SHARE = arg("no-llm-share", 0.2)
const ONLY = process.argv.includes("--only") ? arg("only", 0) : undefined
const PHASE = process.argv.includes("--phase") ? process.argv[process.argv.indexOf("--phase") + 1] : undefined
/**
 * Low by default, so that oversize bodies are cheap to send and the 413 paths are exercised
 * often; above the largest turn (512 KiB), huge single fields reach the turn limit and beyond.
 */
const MAX_BODY_BYTES = arg("max-body-bytes", 262_144)
const BACKEND = textArg("backend", "sqlite")

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

interface Phase {
  readonly label: string
  readonly count: number
  readonly env: Record<string, string>
}

const runPhase = async (phase: Phase, seed: number, cluster: Cluster | undefined): Promise<boolean> => {
  const dataRoot = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "memory-fuzz-"))
  const database = cluster === undefined ? {} : { SERVICE_DATABASE_URL: await createDatabase(cluster.url) }
  const service = await startService(dataRoot, { SERVICE_MAX_BODY_BYTES: String(MAX_BODY_BYTES), ...database, ...phase.env })
  let report: FuzzReport | undefined
  let alive = false
  try {
    report = await runFuzz({
      baseUrl: `http://127.0.0.1:${service.port}`,
      apiKey: BENCH_KEY,
      seed,
      count: phase.count,
      maxBodyBytes: MAX_BODY_BYTES,
      concurrency: CONCURRENCY,
      ...(ONLY === undefined ? {} : { only: ONLY }),
      onProgress: (sent) => {
        if (sent % 2000 === 0) process.stderr.write(`${phase.label}: ${sent}/${phase.count}\n`)
      }
    })
  } finally {
    alive = isAlive(service.pid)
    console.log(`${phase.label}: server process ${alive ? "alive" : "DEAD"} after the run`)
    if (report !== undefined) console.log(formatReport(report, phase.label))
    if (alive) await service.stop()
    NodeFs.rmSync(dataRoot, { recursive: true, force: true })
  }
  return alive && report !== undefined && passed(report)
}

const main = async () => {
  const what = ONLY === undefined ? `${COUNT} requests` : `replaying case #${ONLY}`
  console.log(`fuzz: seed ${SEED}, ${what}, concurrency ${CONCURRENCY}, SERVICE_MAX_BODY_BYTES=${MAX_BODY_BYTES}, backend ${BACKEND}`)
  const stub = await startProviderStub({ provider: "openai" })
  const cluster = BACKEND === "postgres" ? await startCluster({ fsync: false }) : undefined
  const noLlmCount = Math.round(COUNT * NO_LLM_SHARE)
  const phases: ReadonlyArray<Phase> = [
    {
      label: "with-llm",
      count: COUNT - noLlmCount,
      env: { SERVICE_LLM_PROVIDER: "openai", SERVICE_LLM_API_KEY: "stub-key", SERVICE_LLM_BASE_URL: stub.url, SERVICE_LLM_MAX_RETRIES: "1" }
    },
    { label: "no-llm", count: noLlmCount, env: { SERVICE_ALLOW_PURGE: "true" } }
  ]
  let ok = true
  try {
    // Each phase has its own seed (printed with its figures); a replay of one phase takes it as given.
    for (const [i, phase] of phases.entries()) {
      if (phase.count === 0 || (PHASE !== undefined && PHASE !== phase.label)) continue
      ok = (await runPhase(phase, PHASE === undefined ? SEED + i * 1_000_003 : SEED, cluster)) && ok
    }
  } finally {
    await stub.close()
    cluster?.stop()
  }
  console.log(ok ? "fuzz: passed" : "fuzz: FAILED")
  process.exitCode = ok ? 0 : 1
}

await main()
