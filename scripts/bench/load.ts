/**
 * Load: many concurrent clients for a fixed time (scripts/reliability/loadRun.ts) across more
 * users than the store cache holds, so stores are opened and closed under traffic. Prints
 * requests, errors, p50/p99 per route, the server's RSS over time and the end-of-run count check;
 * exits 1 on any error or wrong count.
 *
 * The server runs from the compiled build; the loopback OpenAI stub plays the model.
 * Usage: npm run bench:load [-- --clients 200 --seconds 60 --users 50 --cache 16 --delay 0]
 */
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { runLoad } from "../reliability/loadRun.js"
import { startProviderStub } from "../stubs/llm-providers.js"
import { arg, BENCH_KEY, percentile, startService } from "./support.js"

const CLIENTS = arg("clients", 200)
const SECONDS = arg("seconds", 60)
const USERS = arg("users", 50)
const CACHE = arg("cache", 16)
const DELAY_MS = arg("delay", 0)
const SEED = arg("seed", 1)
const RSS_EVERY_MS = 5_000

const stub = await startProviderStub({ provider: "openai", delayMs: DELAY_MS })
const dataRoot = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "memory-load-"))
const service = await startService(dataRoot, {
  SERVICE_STORE_CACHE_MAX: String(CACHE),
  SERVICE_LLM_PROVIDER: "openai",
  SERVICE_LLM_API_KEY: "stub-key",
  SERVICE_LLM_BASE_URL: stub.url
})

const rssMiB = () => {
  const status = NodeFs.readFileSync(`/proc/${service.pid}/status`, "utf8")
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
}
const rss: Array<number> = [rssMiB()]
const sampler = setInterval(() => rss.push(rssMiB()), RSS_EVERY_MS)
const report = await runLoad({
  baseUrl: `http://127.0.0.1:${service.port}`,
  apiKey: BENCH_KEY,
  clients: CLIENTS,
  users: USERS,
  seconds: SECONDS,
  seed: SEED
})
clearInterval(sampler)
rss.push(rssMiB())

const errorCount = [...report.errors.values()].reduce((sum, n) => sum + n, 0)
console.log(`load: ${CLIENTS} clients, ${USERS} users, store cache ${CACHE}, stub delay ${DELAY_MS} ms, ${report.elapsedS.toFixed(1)} s`)
console.log(`  requests ${report.requests} (${(report.requests / report.elapsedS).toFixed(0)}/s), errors ${errorCount}, users with a wrong count ${report.wrongCounts.length}/${USERS}`)
for (const [kind, n] of report.errors) console.log(`  error: ${kind} × ${n}`)
for (const wrong of report.wrongCounts) console.log(`  wrong count: ${wrong}`)
console.log("  route       count   p50 ms   p99 ms")
for (const [route, values] of report.latencies) {
  const sorted = [...values].sort((a, b) => a - b)
  console.log(`  ${route.padEnd(10)} ${String(sorted.length).padStart(6)} ${percentile(sorted, 0.5).toFixed(1).padStart(8)} ${percentile(sorted, 0.99).toFixed(1).padStart(8)}`)
}
console.log(`  RSS MiB every ${RSS_EVERY_MS / 1000} s: ${rss.map((value) => value.toFixed(0)).join(" ")}`)
// Warm-up (the first third) grows the heap; flat means the later two thirds stay level.
const third = Math.max(1, Math.floor(rss.length / 3))
const mean = (values: ReadonlyArray<number>) => values.reduce((sum, v) => sum + v, 0) / values.length
console.log(`  RSS mean, middle third ${mean(rss.slice(third, -third)).toFixed(0)} MiB, last third ${mean(rss.slice(-third)).toFixed(0)} MiB`)

await service.stop()
await stub.close()
NodeFs.rmSync(dataRoot, { recursive: true, force: true })
process.exitCode = errorCount === 0 && report.wrongCounts.length === 0 ? 0 : 1
