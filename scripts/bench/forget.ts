/**
 * What forgetting costs, SQLite and PostgreSQL in one run. Each backend gets two users with the
 * same store, written through the API with extraction on (the OpenAI stub's brain extracting and
 * the stub embedding turns and facts), so that every fact is linked to the turns it came from by
 * the normal write path: sessions of six turns (three user turns of two sentences, six facts).
 * Then, one request at a time through a real server process:
 *
 * - a plain search, for scale;
 * - archives of single memories (`DELETE /v1/memories/{id}`), then purges of others
 *   (`?purge=true`), each request on its own;
 * - searches each right after an archive, for what forgetting leaves to the next reader;
 *
 * first with the stub as the embedder (the rewritten turns are embedded again), then with no
 * embedder (their vectors only dropped). After each, a whole user's memories archived at once
 * (`DELETE /v1/memories?user_id=`): with the embedder the second user, untouched until then;
 * without, what is left of the first.
 *
 * `--service` runs another tree's build against the same client, e.g. a commit before forgetting
 * (build it first: `npx tsc -p tsconfig.build.json` in that tree); the API is the same.
 *
 * Usage: npm run bench:forget [-- --sessions 1000 --forgets 200 --searches 200 --dimensions 256
 *   --backends sqlite,postgres --service ../other-tree] (or BENCH_SESSIONS, BENCH_FORGETS, …)
 */
import { Schema } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { createDatabase, startCluster } from "../postgres/cluster.js"
import { seededRandom } from "../reliability/random.js"
import { startProviderStub } from "../stubs/llm-providers.js"
import { question, session } from "./sessions.js"
import { arg, type ServiceProcess, sendJson, startService, stats, textArg } from "./support.js"

const SESSIONS = arg("sessions", 1_000)
const FORGETS = arg("forgets", 200)
const SEARCHES = arg("searches", 200)
/** Searches timed each right after an archive. */
const AFTER = arg("after", 50)
const DIMENSIONS = arg("dimensions", 256)
const BACKENDS = textArg("backends", "sqlite,postgres").split(",")
const SERVICE = textArg("service", "")
const WARMUP = 5
const BATCH = 500
/** Forgotten one by one, and searched in; the other is archived whole. */
const ONE = "forget-one"
const ALL = "forget-all"

/** The build to run: `dist/main.js` of this tree, or of the tree (or the file) `--service` names. */
const entry = (() => {
  const file = SERVICE === "" ? "dist/main.js" : NodeFs.statSync(SERVICE).isDirectory() ? NodePath.join(SERVICE, "dist/main.js") : SERVICE
  if (!NodeFs.existsSync(file)) throw new Error(`${file} is missing: build that tree first (npx tsc -p tsconfig.build.json)`)
  return NodePath.resolve(file)
})()

// ---- what the benchmark reads of the answers ----

const decode = <A, I>(schema: Schema.Schema<A, I>) => Schema.decodeUnknownSync(schema)
const decodeBatch = decode(Schema.Struct({ succeeded: Schema.Number, results: Schema.Array(Schema.Struct({ facts_extracted: Schema.Number })) }))
const decodeList = decode(Schema.Struct({ memories: Schema.Array(Schema.Struct({ id: Schema.String })), total: Schema.Number }))
const decodeDelete = decode(Schema.Struct({
  deleted: Schema.Boolean,
  cascaded: Schema.Struct({ versions: Schema.optional(Schema.Number), turns_redacted: Schema.optional(Schema.Number) })
}))
const decodeUserDelete = decode(Schema.Struct({ archived: Schema.Number }))
const decodeStats = decode(Schema.Struct({ largest_stores: Schema.Array(Schema.Struct({ user_id: Schema.String, bytes: Schema.Number })) }))
const decodeHealth = decode(Schema.Struct({ version: Schema.String, schema_version: Schema.Number }))

// ---- the store ----

/** The user's sessions through the batch route, BATCH at a time, with extraction; the facts extracted. */
const seedUser = async (port: number, userId: string) => {
  let facts = 0
  for (let from = 0; from < SESSIONS; from += BATCH) {
    const sessions = Array.from({ length: Math.min(BATCH, SESSIONS - from) }, (_, k) => session(from + k))
    const { json } = await sendJson(port, "POST", "/v1/memories/batch", { user_id: userId, sessions, infer: true, async_mode: false })
    const batch = decodeBatch(json)
    if (batch.succeeded !== sessions.length) throw new Error(`${userId}: ${batch.succeeded} of ${sessions.length} sessions ingested`)
    facts += batch.results.reduce((sum, result) => sum + result.facts_extracted, 0)
  }
  return facts
}

/** Every current memory's id, oldest first. */
const memoryIds = async (port: number, userId: string) => {
  const ids: Array<string> = []
  for (let total = Infinity; ids.length < total;) {
    const page = decodeList((await sendJson(port, "GET", `/v1/memories?user_id=${userId}&offset=${ids.length}&limit=500`)).json)
    if (page.memories.length === 0) break
    ids.push(...page.memories.map((memory) => memory.id))
    total = page.total
  }
  return ids
}

/** The ids in a seeded order: the memories forgotten come from all over the store. */
const shuffled = (ids: ReadonlyArray<string>) => {
  const random = seededRandom(7)
  const out = [...ids]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

// ---- timings ----

const fixed = (value: number, digits = 1) => value.toFixed(digits)
const thousands = (value: number) => value.toLocaleString("en-US")

interface Timing {
  readonly label: string
  readonly embedder: string
  readonly server: Array<number>
  readonly client: Array<number>
  readonly note?: string
}

const timed = async (label: string, embedder: string, count: number, send: (i: number) => Promise<{ readonly serverMs: number; readonly clientMs: number }>) => {
  const timing: Timing = { label, embedder, server: [], client: [] }
  for (let i = 0; i < count; i++) {
    const { clientMs, serverMs } = await send(i)
    timing.server.push(serverMs)
    timing.client.push(clientMs)
  }
  return timing
}

const search = (port: number, i: number) => sendJson(port, "POST", "/v1/search", { user_id: ONE, query: question((i * 7919) % SESSIONS) })

const forget = async (port: number, id: string, purge: boolean, counts: { versions: number; turns: number }) => {
  const result = await sendJson(port, "DELETE", `/v1/memories/${id}?user_id=${ONE}${purge ? "&purge=true" : ""}`)
  const answer = decodeDelete(result.json)
  if (!answer.deleted) throw new Error(`${id}: not deleted`)
  counts.versions += answer.cascaded.versions ?? 0
  counts.turns += answer.cascaded.turns_redacted ?? 0
  return result
}

/**
 * One server's round over the first user: warm-up, searches, single archives and purges of the
 * next memories of `ids` (consumed), searches each right after an archive.
 */
const round = async (port: number, embedder: string, ids: Array<string>) => {
  const take = (n: number) => ids.splice(0, n)
  const counts = { versions: 0, turns: 0 }
  for (let i = 0; i < WARMUP * 2; i++) await search(port, i)
  for (const id of take(WARMUP)) await forget(port, id, false, counts)
  for (const id of take(WARMUP)) await forget(port, id, true, counts)
  const searches = await timed("search", embedder, SEARCHES, (i) => search(port, i))
  const archives = take(FORGETS)
  const archive = await timed("archive one memory", embedder, archives.length, (i) => forget(port, archives[i]!, false, counts))
  const purges = take(FORGETS)
  counts.versions = 0
  counts.turns = 0
  const purge = await timed("purge one memory", embedder, purges.length, (i) => forget(port, purges[i]!, true, counts))
  const purgeNote = counts.versions === 0 ? undefined : `${(counts.versions / purges.length).toFixed(2)} versions and ${(counts.turns / purges.length).toFixed(2)} turns redacted a purge`
  const befores = take(AFTER)
  const after = await timed("search right after an archive", embedder, befores.length, async (i) => {
    await forget(port, befores[i]!, false, counts)
    return search(port, i + SEARCHES)
  })
  return [searches, archive, { ...purge, ...(purgeNote === undefined ? {} : { note: purgeNote }) }, after]
}

/** `DELETE /v1/memories?user_id=`: every memory of the user archived in one request. */
const archiveUser = async (port: number, userId: string, embedder: string): Promise<Timing> => {
  const { clientMs, json, serverMs } = await sendJson(port, "DELETE", `/v1/memories?user_id=${userId}`)
  return { label: `archive the whole user (${thousands(decodeUserDelete(json).archived)} memories)`, embedder, server: [serverMs], client: [clientMs] }
}

// ---- one backend ----

type Backend = "SQLite" | "PostgreSQL"

interface BackendRun {
  readonly backend: Backend
  readonly lines: ReadonlyArray<string>
  readonly timings: ReadonlyArray<Timing>
}

const runBackend = async (backend: Backend, backendEnv: Record<string, string>, stubUrl: string): Promise<BackendRun> => {
  const dataRoot = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "bench-forget-"))
  const base = { SERVICE_REQUEST_LOG_MAX: "0", SERVICE_ALLOW_PURGE: "true", ...backendEnv }
  const withEmbedder = {
    ...base,
    SERVICE_LLM_PROVIDER: "openai",
    SERVICE_LLM_API_KEY: "bench",
    SERVICE_LLM_BASE_URL: stubUrl,
    SERVICE_LLM_CONCURRENCY: "8"
  }
  const embedderName = `stub ${DIMENSIONS}-d`
  const lines: Array<string> = []
  const timings: Array<Timing> = []
  let server: ServiceProcess | undefined
  try {
    server = await startService(dataRoot, withEmbedder, { entry })
    const port = server.port
    const health = decodeHealth((await sendJson(port, "GET", "/health")).json)
    lines.push(`${backend}: service ${health.version} (store schema ${health.schema_version}) from ${entry}`)
    const started = performance.now()
    const [facts] = await Promise.all([seedUser(port, ONE), seedUser(port, ALL)])
    const seconds = (performance.now() - started) / 1000
    const ids = shuffled(await memoryIds(port, ONE))
    const bytes = decodeStats((await sendJson(port, "GET", "/v1/admin/stats")).json).largest_stores.find((store) => store.user_id === ONE)?.bytes ?? 0
    lines.push(`${backend}: each user ${thousands(SESSIONS)} sessions, ${thousands(SESSIONS * 6)} turns, ${thousands(facts)} facts extracted, ` +
      `${thousands(ids.length)} current memories; store ${fixed(bytes / 1024 / 1024)} MiB (admin stats); both users seeded in ${fixed(seconds)} s`)
    timings.push(...await round(port, embedderName, ids))
    timings.push(await archiveUser(port, ALL, embedderName))
    await server.stop()
    server = undefined
    server = await startService(dataRoot, base, { entry })
    timings.push(...await round(server.port, "none", ids))
    timings.push({ ...await archiveUser(server.port, ONE, "none"), note: "the first user, after its rounds" })
    await server.stop()
    server = undefined
  } finally {
    await server?.stop()
    NodeFs.rmSync(dataRoot, { recursive: true, force: true })
  }
  return { backend, lines, timings }
}

// ---- output ----

const cell = (values: ReadonlyArray<number>) => {
  const { p50, p99 } = stats([...values])
  return values.length === 1 ? fixed(p50) : `${fixed(p50)} / ${fixed(p99)}`
}

const printBackend = ({ backend, lines, timings }: BackendRun) => {
  console.log("")
  for (const line of lines) console.log(line)
  console.log(`${backend}: one request at a time, ms (server-side x-response-time-ms; client as the benchmark sees it)`)
  console.log("operation                                    embedder      n   server p50 / p99   client p50 / p99")
  for (const t of timings) {
    console.log(`${t.label.padEnd(44)} ${t.embedder.padEnd(12)} ${String(t.server.length).padStart(3)}   ${cell(t.server).padStart(16)}   ${cell(t.client).padStart(16)}${t.note === undefined ? "" : `   (${t.note})`}`)
  }
}

const main = async () => {
  const stub = await startProviderStub({ provider: "openai", dimensions: DIMENSIONS })
  const cluster = BACKENDS.includes("postgres") ? await startCluster({ fsync: true }) : undefined
  const runs: Array<BackendRun> = []
  try {
    console.log(`forgetting benchmark: ${thousands(SESSIONS)} sessions a user, ${FORGETS} archives and ${FORGETS} purges a round, ${SEARCHES} searches, ` +
      `${AFTER} searches each after an archive; OpenAI stub (no delay); ${NodeOs.cpus().length} cores shared by the server, the database and the client`)
    if (BACKENDS.includes("sqlite")) runs.push(await runBackend("SQLite", {}, stub.url))
    if (cluster !== undefined) runs.push(await runBackend("PostgreSQL", { SERVICE_DATABASE_URL: await createDatabase(cluster.url) }, stub.url))
  } finally {
    cluster?.stop()
    await stub.close()
  }
  for (const run of runs) printBackend(run)
  if (runs.length > 1) {
    console.log("\nside by side, server-side p50 / p99 ms")
    console.log(`operation                                    embedder     ${runs.map((run) => run.backend.padEnd(16)).join(" ")}`)
    runs[0]!.timings.forEach((t, i) => {
      const label = t.label.replace(/ \(.*\)$/, "")
      console.log(`${label.padEnd(44)} ${t.embedder.padEnd(12)} ${runs.map((run) => cell(run.timings[i]?.server ?? []).padEnd(16)).join(" ")}`)
    })
  }
}

void main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
