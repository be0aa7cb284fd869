/**
 * One user's export and import, SQLite and PostgreSQL in one run. Each backend's service (the
 * compiled build, a real process) gets users of each size, written through the API as verbatim
 * turns (infer=false, many a request; no LLM, no embedder). Then, one request at a time:
 *
 * - `GET /v1/export` read as it streams (to a file), its records per second, while the service's
 *   resident set is sampled: the peak over the export against the resident set just before;
 * - `POST /v1/import` of that file under a new user id, its records per second (the body is
 *   spooled to a file first, then loaded as one unit).
 *
 * Sizes growing tenfold with the peak staying put is what shows the export pages through rows
 * instead of holding the user. Without a bound V8 lets garbage pile up before it collects, and
 * the peak grows with the bytes sent; `--heap-mib` bounds the service's heap
 * (`--max-old-space-size`) to tell garbage from what the export holds.
 *
 * Usage: npm run bench:export [-- --turns 10000,100000 --per-request 500 --backends sqlite,postgres --heap-mib 200]
 */
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { Readable } from "node:stream"
import { pipeline } from "node:stream/promises"
import { createDatabase, startCluster } from "../postgres/cluster.js"
import { BENCH_KEY, listArg, postJson, rssMiB, type ServiceProcess, startService, textArg } from "./support.js"

const SIZES = listArg("turns", [10_000, 100_000])
const PER_REQUEST = Number(textArg("per-request", "500"))
const BACKENDS = textArg("backends", "sqlite,postgres").split(",")
const HEAP_MIB = textArg("heap-mib", "")
const SAMPLE_MS = 20

const PLACES = ["Lisbon", "Porto", "Berlin", "Kyoto", "Oslo", "Quito", "Cairo", "Perth"]
const THINGS = ["a bicycle", "green tea", "a concert", "chess", "a beagle", "sourdough", "the garden", "a new job"]

/** A turn of ordinary length, different for every i. */
const turnText = (i: number) =>
  `On day ${i} I went to ${PLACES[i % PLACES.length]} and talked about ${THINGS[(i * 7) % THINGS.length]} with a friend; it took ${i % 60} minutes.`

const seed = async (service: ServiceProcess, userId: string, turns: number) => {
  const started = performance.now()
  for (let from = 0; from < turns; from += PER_REQUEST) {
    const messages = Array.from({ length: Math.min(PER_REQUEST, turns - from) }, (_, k) => ({ content: turnText(from + k) }))
    await postJson(service.port, "/v1/memories", { user_id: userId, session_id: `s${from}`, infer: false, async_mode: false, messages })
  }
  return (performance.now() - started) / 1000
}

/** Samples the process's resident set until stopped; the peak. */
const sampleRss = (pid: number) => {
  let peak = rssMiB(pid)
  const timer = setInterval(() => {
    peak = Math.max(peak, rssMiB(pid))
  }, SAMPLE_MS)
  return () => {
    clearInterval(timer)
    return Math.max(peak, rssMiB(pid))
  }
}

const exportTo = async (service: ServiceProcess, userId: string, file: string) => {
  const before = rssMiB(service.pid)
  const stop = sampleRss(service.pid)
  const started = performance.now()
  const response = await fetch(`http://127.0.0.1:${service.port}/v1/export?user_id=${userId}`, { headers: { authorization: `Bearer ${BENCH_KEY}` } })
  if (response.status !== 200 || response.body === null) throw new Error(`export of ${userId}: ${response.status} ${await response.text()}`)
  await pipeline(Readable.fromWeb(response.body), NodeFs.createWriteStream(file))
  const seconds = (performance.now() - started) / 1000
  const peak = stop()
  const records = NodeFs.readFileSync(file, "utf8").split("\n").filter((line) => line !== "").length
  return { seconds, records, bytes: NodeFs.statSync(file).size, rssBefore: before, rssPeak: peak }
}

const importFrom = async (service: ServiceProcess, userId: string, file: string) => {
  const started = performance.now()
  const response = await fetch(`http://127.0.0.1:${service.port}/v1/import?user_id=${userId}`, {
    method: "POST",
    headers: { authorization: `Bearer ${BENCH_KEY}`, "content-type": "application/x-ndjson" },
    body: NodeFs.readFileSync(file)
  })
  if (response.status !== 201) throw new Error(`import into ${userId}: ${response.status} ${await response.text()}`)
  return { seconds: (performance.now() - started) / 1000 }
}

const perSecond = (count: number, seconds: number) => Math.round(count / seconds)

const main = async () => {
  const cluster = BACKENDS.includes("postgres") ? await startCluster({ fsync: true }) : undefined
  const scratch = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "bench-export-"))
  const heap = HEAP_MIB === "" ? "heap unbounded" : `service heap bounded at ${HEAP_MIB} MiB`
  console.log(`export and import of one user; sizes ${SIZES.join(", ")} turns (${PER_REQUEST} a request); ${heap}; ${NodeOs.cpus().length} cores`)
  try {
    for (const backend of BACKENDS) {
      const dataRoot = NodeFs.mkdtempSync(NodePath.join(scratch, `${backend}-`))
      const env: Record<string, string> = {
        ...(backend === "postgres" && cluster !== undefined ? { SERVICE_DATABASE_URL: await createDatabase(cluster.url) } : {}),
        ...(HEAP_MIB === "" ? {} : { NODE_OPTIONS: `--max-old-space-size=${HEAP_MIB}` })
      }
      const service = await startService(dataRoot, env)
      try {
        for (const turns of SIZES) {
          const userId = `bench-${turns}`
          const seeded = await seed(service, userId, turns)
          const file = NodePath.join(scratch, `${backend}-${turns}.jsonl`)
          const exported = await exportTo(service, userId, file)
          const imported = await importFrom(service, `${userId}-copy`, file)
          console.log(
            `${backend.padEnd(8)} ${String(turns).padStart(7)} turns: seeded in ${seeded.toFixed(1)} s; ` +
              `export ${exported.records} records (${(exported.bytes / 1024 / 1024).toFixed(1)} MiB) in ${exported.seconds.toFixed(2)} s = ` +
              `${perSecond(exported.records, exported.seconds)} records/s, service RSS ${exported.rssBefore.toFixed(0)} MiB before, ` +
              `${exported.rssPeak.toFixed(0)} MiB peak; import in ${imported.seconds.toFixed(2)} s = ${perSecond(exported.records, imported.seconds)} records/s`
          )
          NodeFs.rmSync(file)
        }
      } finally {
        await service.stop()
      }
    }
  } finally {
    cluster?.stop()
    NodeFs.rmSync(scratch, { recursive: true, force: true })
  }
}

await main()
