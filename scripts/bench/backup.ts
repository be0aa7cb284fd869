/**
 * Online backup of the embedded backend: how fast `memory-service backup` copies a data root while
 * the service serves a search/ingest mix, and what the backup costs those requests. One run:
 * the data root is built (one user's store of generated sentences written through the adapter's own turn writes,
 * then copied for every user, to reach the size fast), the service started on it from the build,
 * the mix timed for a window without a backup, then for as long as a backup takes, then for
 * another window without (the two quiet windows together are the baseline, so that a drift of
 * the machine's load weighs on both sides); then `verify` of that backup is timed too. Prints the root's size, the backup's and verify's MB/s,
 * and the requests' p50/p99 in both windows, against the target: p99 during a backup at most
 * twice p99 without one.
 *
 * Usage: npm run bench:backup [-- --megabytes 1024 --users 200 --clients 4 --seconds 20 --search 80]
 * (or BENCH_MEGABYTES, BENCH_USERS, …)
 */
import { Reactivity } from "@effect/experimental"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { openMigrated } from "../../src/storage/sqlite/database.js"
import { userStoreMigrations } from "../../src/storage/sqlite/user/migrations.js"
import { appendTurns } from "../../src/storage/sqlite/user/turns.js"
import { STORE_SCHEMA_VERSION } from "../../src/version.js"
import { seededRandom } from "../reliability/random.js"
import { arg, postJson, startService, stats } from "./support.js"

const MEGABYTES = arg("megabytes", 1024)
const USERS = arg("users", 200)
const CLIENTS = arg("clients", 4)
const SECONDS = arg("seconds", 20)
const SEARCH_PERCENT = arg("search", 80)
const TURNS_PER_SESSION = 200

const WORDS = (
  "garden beagle trip lisbon porto coffee morning sister brother concert guitar painting hiking mountain lake river " +
  "birthday dinner recipe pasta bakery museum library novel poetry chess tennis marathon bicycle train flight hotel " +
  "office project deadline meeting manager promotion salary apartment kitchen balcony neighbour school teacher exam " +
  "holiday beach sunset camera photo album wedding anniversary gift flowers doctor allergy medicine vaccine puppy"
).split(" ")

/** A sentence of `length` words, the same for the same seed. */
const sentence = (seed: number, length: number) => {
  const random = seededRandom(seed)
  return Array.from({ length }, () => WORDS[Math.floor(random() * WORDS.length)]!).join(" ")
}

const userId = (n: number) => `backup-${String(n).padStart(4, "0")}`

/** One store of about `bytes`, sessions of LoCoMo's turns written by the adapter's own unit of work. */
const buildTemplate = (file: string, bytes: number) =>
  Effect.scoped(Effect.gen(function*() {
    const sql = yield* openMigrated({ filename: file, migrations: userStoreMigrations, latest: STORE_SCHEMA_VERSION })
    // Checkpointed every few sessions, so that the file's size is the store's.
    for (let session = 0; session % 10 !== 0 || NodeFs.statSync(file).size < bytes; session++) {
      yield* sql.withTransaction(appendTurns(sql, {
        sessionId: `seed-${session}`,
        sessionTime: "2024-01-01",
        turns: Array.from({ length: TURNS_PER_SESSION }, (_, t) => ({
          role: t % 2 === 0 ? "user" : "assistant",
          content: `We talked about ${sentence(session * TURNS_PER_SESSION + t, 24)} (${session}.${t})`
        })),
        scope: { agent_id: null, run_id: null, project_id: null },
        now: "2024-01-01T00:00:00.000000+00:00"
      }))
      if (session % 10 === 9) yield* sql`PRAGMA wal_checkpoint(TRUNCATE)`
    }
  })).pipe(Effect.provide(Reactivity.layer))

/** A data root of USERS stores of MEGABYTES in all: one built, the rest its copies. */
const buildDataRoot = async (dataRoot: string) => {
  const template = NodePath.join(dataRoot, userId(0), "store.db")
  NodeFs.mkdirSync(NodePath.dirname(template), { recursive: true })
  await Effect.runPromise(buildTemplate(template, (MEGABYTES * 1e6) / USERS))
  for (let n = 1; n < USERS; n++) {
    NodeFs.mkdirSync(NodePath.join(dataRoot, userId(n)))
    NodeFs.copyFileSync(template, NodePath.join(dataRoot, userId(n), "store.db"))
  }
}

/** The mix from CLIENTS concurrent clients until `running()` turns false: each request's latency in ms. */
const runMix = async (port: number, running: () => boolean, seed: number) => {
  const latencies: Array<number> = []
  await Promise.all(Array.from({ length: CLIENTS }, async (_, client) => {
    const random = seededRandom(seed + client)
    for (let i = 0; running(); i++) {
      const user = userId(Math.floor(random() * USERS))
      const { clientMs } = random() * 100 < SEARCH_PERCENT
        ? await postJson(port, "/v1/search", { user_id: user, query: sentence(seed * 1_000_003 + client * 7919 + i, 3), top_k: 10 })
        : await postJson(port, "/v1/memories", {
          user_id: user, session_id: `load-${client}-${i}`, infer: false, async_mode: false,
          messages: [{ role: "user", content: `I told them about ${sentence(seed * 1_000_033 + client * 104_729 + i, 16)}` }]
        })
      latencies.push(clientMs)
    }
  }))
  return latencies
}

/** The mix for SECONDS without a backup: its latencies and how long it ran. */
const quietWindow = async (port: number, seed: number) => {
  let quiet = true
  setTimeout(() => (quiet = false), SECONDS * 1000)
  const started = performance.now()
  const latencies = await runMix(port, () => quiet, seed)
  return { latencies, seconds: (performance.now() - started) / 1000 }
}

/** Runs the CLI's build to its end: its wall time in seconds; fails on a non-zero exit. */
const runCli = (args: ReadonlyArray<string>) =>
  new Promise<number>((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, ["dist/cli/main.js", ...args], { stdio: ["ignore", "ignore", "inherit"] })
    child.on("exit", (code) => code === 0 ? resolve((performance.now() - started) / 1000) : reject(new Error(`memory-service ${args[0]} exited with ${code}`)))
  })

const directoryBytes = (root: string): number =>
  NodeFs.readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((sum, entry) => sum + NodeFs.statSync(NodePath.join(entry.parentPath, entry.name)).size, 0)

const row = (label: string, latencies: Array<number>, seconds: number) => {
  const { p50, p99 } = stats(latencies)
  return { line: `${label.padEnd(16)} ${String(latencies.length).padStart(8)}  ${(latencies.length / seconds).toFixed(1).padStart(8)}  ${p50.toFixed(1).padStart(7)}  ${p99.toFixed(1).padStart(7)}`, p99 }
}

const main = async () => {
  const work = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "bench-backup-"))
  const dataRoot = NodePath.join(work, "root")
  const backup = NodePath.join(work, "backup")
  try {
    const built = performance.now()
    await buildDataRoot(dataRoot)
    const buildSeconds = (performance.now() - built) / 1000
    const server = await startService(dataRoot)
    try {
      const rootBytes = directoryBytes(dataRoot)
      // Warm-up: every store opened once, the page cache as a serving machine has it.
      let warming = true
      setTimeout(() => (warming = false), 3_000)
      await runMix(server.port, () => warming, 1)

      const before = await quietWindow(server.port, 2)
      let backingUp = true
      const load = runMix(server.port, () => backingUp, 3)
      const backupSeconds = await runCli(["backup", "--to", backup, "--data-root", dataRoot]).finally(() => (backingUp = false))
      const during = await load
      const after = await quietWindow(server.port, 4)
      const backupBytes = directoryBytes(backup)
      const verifySeconds = await runCli(["verify", backup])

      const base = row("without backup", [...before.latencies, ...after.latencies], before.seconds + after.seconds)
      const busy = row("during backup", during, backupSeconds)
      console.log(`data root: ${USERS} users, ${(rootBytes / 1e6).toFixed(0)} MB (built in ${buildSeconds.toFixed(0)} s); mix ${SEARCH_PERCENT}% search, ${100 - SEARCH_PERCENT}% ingest, ${CLIENTS} clients`)
      console.log(`backup: ${(backupBytes / 1e6).toFixed(0)} MB in ${backupSeconds.toFixed(1)} s = ${(backupBytes / 1e6 / backupSeconds).toFixed(1)} MB/s, beside the load`)
      console.log(`verify: ${(backupBytes / 1e6 / verifySeconds).toFixed(1)} MB/s (${verifySeconds.toFixed(1)} s, checksums, counts and integrity_check, no load)`)
      console.log("window           requests     req/s   p50 ms   p99 ms")
      console.log(base.line)
      console.log(busy.line)
      const ratio = busy.p99 / base.p99
      console.log(`p99 during / without: ${ratio.toFixed(2)}x (target <= 2x: ${ratio <= 2 ? "met" : "missed"})`)
    } finally {
      await server.stop()
    }
  } finally {
    NodeFs.rmSync(work, { recursive: true, force: true })
  }
}

void main()
