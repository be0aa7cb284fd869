/**
 * How much slower this machine runs a fixed piece of work right after it has idled: a statement
 * shaped like the service's re-rank of a session's new facts (SQLite with sqlite-vec, on a WAL file
 * as a store uses) and a plain JavaScript workload (JSON and a Map), each timed back to back and
 * after idle gaps. A session of `bench:llm` does its work in bursts right after provider replies,
 * so this tells how much of its overhead belongs to the machine rather than the service.
 *
 * Usage: npm run bench:idle [-- --runs 200]
 */
import Database from "better-sqlite3"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as SqliteVec from "sqlite-vec"
import { arg, percentile } from "./support.js"

const RUNS = arg("runs", 200)
const GAPS_MS = [0, 5, 50]
const DIMENSIONS = 256
const ROWS = 1200
const QUERIES = 6
const CANDIDATES = 100

const vector = (seed: number) => Float32Array.from({ length: DIMENSIONS }, (_, j) => Math.sin(seed * 7.3 + j * 0.37))
const bytes = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength)

/** A store-like file with ROWS vectors, and the service's re-rank of QUERIES × CANDIDATES rows as one statement. */
const rerankWork = (file: string) => {
  const db = new Database(file)
  db.loadExtension(SqliteVec.getLoadablePath())
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = NORMAL")
  db.exec("CREATE TABLE fact_vector_data (seq INTEGER PRIMARY KEY, embedding BLOB NOT NULL)")
  const insert = db.prepare("INSERT INTO fact_vector_data (seq, embedding) VALUES (?, ?)")
  db.transaction(() => {
    for (let seq = 1; seq <= ROWS; seq++) insert.run(seq, bytes(vector(seq)))
  })()
  const queries = Array.from({ length: QUERIES }, (_, q) => vector(ROWS + 1 + q))
  const candidates = queries.map((_, q) => Array.from({ length: CANDIDATES }, (_, j) => 1 + ((q * 37 + j * 11) % ROWS)))
  const statement = db.prepare(candidates.map((list, q) =>
    `SELECT * FROM (SELECT ${q} AS query, seq, vec_distance_cosine(embedding, ?) AS distance FROM fact_vector_data
     WHERE seq IN (${list.map(() => "?").join(",")}) ORDER BY distance LIMIT 5)`
  ).join(" UNION ALL "))
  const parameters = candidates.flatMap((list, q) => [bytes(queries[q]!), ...list])
  return { run: () => statement.all(...parameters), close: () => db.close() }
}

const document = JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ id: i, name: `item ${i}`, tags: ["a", "b", "c"], weight: i / 7 })))

const scriptWork = () => {
  const byName = new Map<string, unknown>()
  for (const item of JSON.parse(document) as ReadonlyArray<{ readonly name: string }>) byName.set(item.name, item)
  return byName.size
}

const pause = (ms: number) => new Promise<void>((resolve) => (ms === 0 ? setImmediate(resolve) : setTimeout(resolve, ms)))

/** Median milliseconds of `work` run RUNS times, each after `gapMs` of idling. */
const median = async (work: () => unknown, gapMs: number) => {
  const times: Array<number> = []
  for (let i = 0; i < RUNS; i++) {
    await pause(gapMs)
    const started = performance.now()
    work()
    times.push(performance.now() - started)
  }
  return percentile(times.sort((a, b) => a - b), 0.5)
}

const main = async () => {
  const dir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "bench-idle-"))
  const rerank = rerankWork(NodePath.join(dir, "store.db"))
  try {
    console.log(`idle penalty: median of ${RUNS} runs after each gap, ${NodeOs.cpus().length} cores`)
    for (const [name, work] of [["SQLite re-rank", rerank.run], ["JavaScript (JSON, Map)", scriptWork]] as const) {
      for (let i = 0; i < RUNS; i++) work()
      const medians: Array<number> = []
      for (const gap of GAPS_MS) medians.push(await median(work, gap))
      console.log(`${name.padEnd(24)} ${GAPS_MS.map((gap, i) => `after ${gap} ms idle ${medians[i]!.toFixed(3)} ms (×${(medians[i]! / medians[0]!).toFixed(2)})`).join(", ")}`)
    }
  } finally {
    rerank.close()
    NodeFs.rmSync(dir, { recursive: true, force: true })
  }
}

void main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
