/**
 * Ingest throughput with infer=false: through the API (a real server process on loopback), sync
 * and async, with 1 and 8 concurrent clients, beside the same inserts done directly on a store
 * file in this process (the floor). Prints turns/s, request latency percentiles and the ratio.
 *
 * The server runs from the compiled build, as `npm start` runs it.
 * Usage: npm run bench:ingest [-- --requests 200 --turns 50]
 */
import { Reactivity } from "@effect/experimental"
import { Effect } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { openMigrated } from "../../src/storage/sqlite/database.js"
import { userStoreMigrations } from "../../src/storage/sqlite/user/migrations.js"
import { appendTurns } from "../../src/storage/sqlite/user/turns.js"
import { STORE_SCHEMA_VERSION } from "../../src/version.js"
import { arg, BENCH_KEY, percentile, startService } from "./support.js"

const REQUESTS = arg("requests", 200)
const TURNS = arg("turns", 50)
const KEY = BENCH_KEY

const turnText = (i: number, t: number) => `Request ${i}, turn ${t}: we talked about the trip to Lisbon and the dog called Pixel.`

const post = async (port: number, body: unknown) => {
  const response = await fetch(`http://127.0.0.1:${port}/v1/memories`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  const json = await response.json() as { job_id?: string }
  if (response.status !== 200 && response.status !== 202) throw new Error(`status ${response.status}: ${JSON.stringify(json)}`)
  return json
}

const waitJobs = async (port: number, ids: ReadonlyArray<string>) => {
  for (const id of ids) {
    for (;;) {
      const job = await fetch(`http://127.0.0.1:${port}/v1/jobs/${id}`, { headers: { authorization: `Bearer ${KEY}` } })
        .then((r) => r.json() as Promise<{ status: string }>)
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
      const result = await post(port, {
        user_id: `bench-${run}-${client % 4}`,
        session_id: `s${i}`,
        infer: false,
        async_mode: mode === "async",
        messages: Array.from({ length: TURNS }, (_, t) => ({ role: t % 2 === 0 ? "user" : "assistant", content: turnText(i, t) }))
      })
      latencies.push(performance.now() - t0)
      if (result.job_id !== undefined) jobIds.push(result.job_id)
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

const main = async () => {
  const dataRoot = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "bench-ingest-"))
  const floor = await Effect.runPromise(runFloor(dataRoot))
  const server = await startService(dataRoot)
  console.log(`ingest benchmark: ${REQUESTS} requests x ${TURNS} turns, infer=false, ${NodeOs.cpus().length} cores`)
  console.log(`floor (direct inserts on a store file): ${floor.toFixed(0)} turns/s`)
  console.log("mode   clients  turns/s   p50 ms   p99 ms   floor/API")
  for (const mode of ["sync", "async"] as const) {
    for (const clients of [1, 8]) {
      await runApi(server.port, mode, clients, `warm-${mode}-${clients}`)
      const r = await runApi(server.port, mode, clients, `${mode}-${clients}`)
      console.log(`${mode.padEnd(6)} ${String(clients).padStart(7)}  ${r.turnsPerSecond.toFixed(0).padStart(7)}  ${r.p50.toFixed(1).padStart(7)}  ${r.p99.toFixed(1).padStart(7)}   ${(floor / r.turnsPerSecond).toFixed(2)}x`)
    }
  }
  await server.stop()
  NodeFs.rmSync(dataRoot, { recursive: true, force: true })
}

void main()
