/**
 * Ingest throughput with infer=false: through the API (a real server process on loopback), sync
 * and async, with 1 and 8 concurrent clients, on SQLite and on PostgreSQL (a throwaway cluster,
 * fsync on) in one run, beside the same inserts done directly on a SQLite store file in this
 * process (the floor). Prints turns/s, request latency percentiles, the ratio to the floor and
 * PostgreSQL's target.
 *
 * The server runs from the compiled build, as `npm start` runs it.
 * Usage: npm run bench:ingest [-- --requests 200 --turns 50] (or BENCH_REQUESTS, BENCH_TURNS)
 */
import { Reactivity } from "@effect/experimental"
import { Effect, Schema } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { openMigrated } from "../../src/storage/sqlite/database.js"
import { userStoreMigrations } from "../../src/storage/sqlite/user/migrations.js"
import { appendTurns } from "../../src/storage/sqlite/user/turns.js"
import { STORE_SCHEMA_VERSION } from "../../src/version.js"
import { createDatabase, startCluster } from "../postgres/cluster.js"
import { arg, BENCH_KEY, percentile, postJson, startService } from "./support.js"

const REQUESTS = arg("requests", 200)
const TURNS = arg("turns", 50)
const KEY = BENCH_KEY
/** PostgreSQL's target with 8 clients, sync. */
const POSTGRES_TARGET = 5_000

const turnText = (i: number, t: number) => `Request ${i}, turn ${t}: we talked about the trip to Lisbon and the dog called Pixel.`

const JobStatus = Schema.Struct({ status: Schema.String })
const decodeJob = Schema.decodeUnknownSync(JobStatus)

const waitJobs = async (port: number, ids: ReadonlyArray<string>) => {
  for (const id of ids) {
    for (;;) {
      const job = await fetch(`http://127.0.0.1:${port}/v1/jobs/${id}`, { headers: { authorization: `Bearer ${KEY}` } })
        .then(async (r) => decodeJob(await r.json()))
      if (job.status === "succeeded") break
      if (job.status === "failed") throw new Error(`job ${id} failed`)
      await new Promise((r) => setTimeout(r, 2))
    }
  }
}

const runApi = async (port: number, mode: "sync" | "async", clients: number, run: string) => {
  const latencies: Array<number> = []
  const jobIds: Array<string> = []
  let next = 0
  const started = performance.now()
  await Promise.all(Array.from({ length: clients }, async (_, client) => {
    while (next < REQUESTS) {
      const i = next++
      const t0 = performance.now()
      const { answer } = await postJson(port, "/v1/memories", {
        user_id: `bench-${run}-${client % 4}`,
        session_id: `s${i}`,
        infer: false,
        async_mode: mode === "async",
        messages: Array.from({ length: TURNS }, (_, t) => ({ role: t % 2 === 0 ? "user" : "assistant", content: turnText(i, t) }))
      })
      latencies.push(performance.now() - t0)
      if (answer.job_id !== undefined) jobIds.push(answer.job_id)
    }
  }))
  await waitJobs(port, jobIds)
  const seconds = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  return { turnsPerSecond: (REQUESTS * TURNS) / seconds, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) }
}

/** The same session inserts, straight into a store file: what the API is measured against. */
const runFloor = (dataRoot: string) =>
  Effect.gen(function*() {
    const directory = NodePath.join(dataRoot, "floor")
    NodeFs.mkdirSync(directory, { recursive: true })
    const sql = yield* openMigrated({ filename: NodePath.join(directory, "store.db"), migrations: userStoreMigrations, latest: STORE_SCHEMA_VERSION })
    const started = performance.now()
    for (let i = 0; i < REQUESTS; i++) {
      yield* sql.withTransaction(appendTurns(sql, {
        sessionId: `s${i}`,
        sessionTime: "2024-01-01",
        turns: Array.from({ length: TURNS }, (_, t) => ({ role: "user", content: turnText(i, t) })),
        scope: { agent_id: null, run_id: null, project_id: null },
        now: new Date().toISOString()
      }))
    }
    return (REQUESTS * TURNS) / ((performance.now() - started) / 1000)
  }).pipe(Effect.scoped, Effect.provide(Reactivity.layer))

const BACKENDS = ["SQLite", "PostgreSQL"] as const

const main = async () => {
  const dataRoot = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "bench-ingest-"))
  const floor = await Effect.runPromise(runFloor(dataRoot))
  const cluster = await startCluster({ fsync: true })
  const rows: Array<string> = []
  try {
    for (const backend of BACKENDS) {
      const env: Record<string, string> = backend === "PostgreSQL" ? { SERVICE_DATABASE_URL: await createDatabase(cluster.url) } : {}
      const server = await startService(NodeFs.mkdtempSync(NodePath.join(dataRoot, "root-")), env)
      try {
        for (const mode of ["sync", "async"] as const) {
          for (const clients of [1, 8]) {
            await runApi(server.port, mode, clients, `warm-${mode}-${clients}`)
            const r = await runApi(server.port, mode, clients, `${mode}-${clients}`)
            const target = backend === "PostgreSQL" && mode === "sync" && clients === 8
              ? `>= ${POSTGRES_TARGET} turns/s: ${r.turnsPerSecond >= POSTGRES_TARGET ? "met" : "MISSED"}`
              : ""
            rows.push(`${backend.padEnd(11)} ${mode.padEnd(6)} ${String(clients).padStart(7)}  ${r.turnsPerSecond.toFixed(0).padStart(7)}  ${r.p50.toFixed(1).padStart(7)}  ${r.p99.toFixed(1).padStart(7)}   ${`${(floor / r.turnsPerSecond).toFixed(2)}x`.padStart(9)}   ${target}`)
          }
        }
      } finally {
        await server.stop()
      }
    }
  } finally {
    cluster.stop()
    NodeFs.rmSync(dataRoot, { recursive: true, force: true })
  }
  console.log(`ingest benchmark: ${REQUESTS} requests x ${TURNS} turns, infer=false, ${NodeOs.cpus().length} cores; clients share 4 users`)
  console.log(`floor (direct inserts on a SQLite store file): ${floor.toFixed(0)} turns/s`)
  console.log("backend     mode   clients  turns/s   p50 ms   p99 ms   floor/API   target")
  for (const row of rows) console.log(row)
}

void main()
