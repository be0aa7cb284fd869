/**
 * The local embedding provider: embeddings per second with 1 and N worker threads, and search and
 * /health latency while a bulk ingest embeds, on the tiny random-weight model and on any model
 * directory given. All figures come from one run, so that ratios hold on a busy machine.
 *
 * 1. Throughput: the same texts (LoCoMo turns) through the worker pool, batches of 32, with 1
 *    thread, then N (every core), then 1 again; the N-thread rate against N x the better 1-thread
 *    rate (target >= 0.8).
 * 2. Latency, each through a real service process (the compiled build) holding one user's
 *    conversation: search p99 with no embedder (lexical legs only: the baseline), one query's
 *    embedding time, and search p99 with the local model (target <= 2 x baseline + one embedding);
 *    then /health and search p99 while another user's bulk ingest keeps every thread embedding
 *    (target /health p99 <= 10 ms), beside the same bulk ingests with no embedder (what ingesting
 *    itself costs the event loop).
 *
 * Usage: npm run bench:embed [-- --model DIR] [--texts 1024] [--threads N] [--queries 200] [--turns 300]
 */
import { Effect } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { Worker } from "node:worker_threads"
import { startPool } from "../../src/llm/local/workerPool.js"
import { writeTinyModel } from "../../src/llm/local/writeTinyModel.js"
import { questions, sentences } from "./corpus.js"
import { arg, percentile, postJson, startService, textArg } from "./support.js"

const TEXTS = arg("texts", 1024)
const THREADS = arg("threads", NodeOs.availableParallelism())
const QUERIES = arg("queries", 200)
const TURNS = arg("turns", 300)
const MODEL = textArg("model", "")
const BATCH = 32

const p99 = (values: Array<number>) => percentile(values.sort((a, b) => a - b), 0.99)
const p50 = (values: Array<number>) => percentile(values.sort((a, b) => a - b), 0.5)
const ms = (value: number) => `${value.toFixed(1)} ms`

/** Texts per second through a pool of `threads`, every batch sent at once as the provider does. */
const throughput = (directory: string, threads: number, texts: ReadonlyArray<string>) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const pool = yield* startPool({ directory }, threads)
    const batches = Array.from({ length: Math.ceil(texts.length / BATCH) }, (_, i) => texts.slice(i * BATCH, (i + 1) * BATCH))
    yield* pool.run(batches[0]!, "bulk")
    const started = performance.now()
    yield* Effect.forEach(batches, (batch) => pool.run(batch, "bulk"), { concurrency: "unbounded" })
    return texts.length / ((performance.now() - started) / 1000)
  })))

/**
 * The machine's own scaling, the floor for the pool's: busy-loop threads (no model, no messages),
 * N at once against one, as work done per second.
 */
const machineScaling = async (threads: number) => {
  const spin = (count: number) => {
    const started = performance.now()
    return Promise.all(Array.from({ length: count }, () =>
      new Promise<void>((done) => {
        const worker = new Worker("let x = 0; for (let i = 0; i < 2e8; i++) x = (x + i * 7) % 1000003; require('node:worker_threads').parentPort.postMessage(x)", { eval: true })
        worker.on("message", () => void worker.terminate().then(() => done()))
      }))).then(() => count / ((performance.now() - started) / 1000))
  }
  const one = Math.max(await spin(1), await spin(1))
  return (await spin(threads)) / (threads * one)
}

/** One query's embedding time (p50 over distinct queries), on one thread with nothing else to do. */
const queryEmbedding = (directory: string) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const pool = yield* startPool({ directory }, 1)
    const times: Array<number> = []
    for (const query of questions.slice(0, 100)) {
      const started = performance.now()
      yield* pool.run([query], "query")
      times.push(performance.now() - started)
    }
    return p50(times)
  })))

const health = async (port: number) => {
  const started = performance.now()
  const response = await fetch(`http://127.0.0.1:${port}/health`)
  await response.text()
  return performance.now() - started
}

const conversation = (user: string, from: number, count: number) => ({
  user_id: user,
  session_id: `s${from}`,
  infer: false,
  async_mode: false,
  messages: sentences.slice(from, from + count).map((content) => ({ content }))
})

/** Search p99 over distinct queries (none served from the query cache), and /health p99 measured between them. */
const measure = async (port: number, offset: number) => {
  const searches: Array<number> = []
  const healths: Array<number> = []
  for (let i = 0; i < QUERIES; i++) {
    const query = `${questions[(offset + i) % questions.length]} (${offset + i})`
    searches.push((await postJson(port, "/v1/search", { user_id: "reader", query, top_k: 10 })).clientMs)
    healths.push(await health(port))
  }
  return { search: p99(searches), health: p99(healths) }
}

const latency = async (label: string, directory: string | undefined, root: string) => {
  const env: Record<string, string> = directory === undefined ? {} : { SERVICE_EMBED_PROVIDER: "local", SERVICE_EMBED_MODEL: directory }
  const service = await startService(NodeFs.mkdtempSync(NodePath.join(root, "service-")), env, { logFile: NodePath.join(root, "service.log") })
  try {
    await postJson(service.port, "/v1/memories", conversation("reader", 0, TURNS))
    await measure(service.port, 0)
    const idle = await measure(service.port, QUERIES)
    // Bulk ingests one after another, each a few hundred turns, until the measure is done.
    let running = true
    let ingested = 0
    const bulk = (async () => {
      for (let round = 0; running; round++) {
        await postJson(service.port, "/v1/memories", conversation(`bulk-${round}`, (round * 200) % Math.max(1, sentences.length - 200), 200))
        ingested += 200
      }
    })()
    const loaded = await measure(service.port, 2 * QUERIES)
    running = false
    await bulk
    return { label, idle, loaded: { ...loaded, ingested } }
  } finally {
    await service.stop()
  }
}

const run = async (label: string, directory: string, root: string, lexical: { readonly search: number; readonly health: number }) => {
  const texts = sentences.slice(0, TEXTS)
  const one = await throughput(directory, 1, texts)
  const many = await throughput(directory, THREADS, texts)
  const oneAgain = await throughput(directory, 1, texts)
  const single = Math.max(one, oneAgain)
  const floor = await machineScaling(THREADS)
  console.log(`\n${label}`)
  console.log(`  throughput: 1 thread ${one.toFixed(0)} / ${oneAgain.toFixed(0)} texts/s, ${THREADS} threads ${many.toFixed(0)} texts/s; ` +
    `${THREADS} threads / (${THREADS} x 1 thread) = ${(many / (THREADS * single)).toFixed(2)} (target >= 0.80; ` +
    `the machine's own: ${THREADS} busy-loop threads / (${THREADS} x 1) = ${floor.toFixed(2)})`)
  const embedOne = await queryEmbedding(directory)
  const local = await latency(label, directory, root)
  const bound = 2 * lexical.search + embedOne
  console.log(`  one query's embedding: p50 ${ms(embedOne)}`)
  console.log(`  search p99, idle: ${ms(local.idle.search)} against 2 x lexical-only ${ms(lexical.search)} + one embedding = ${ms(bound)} ` +
    `(ratio ${(local.idle.search / bound).toFixed(2)}, target <= 1)`)
  console.log(`  while bulk ingests embed (${local.loaded.ingested} turns): search p99 ${ms(local.loaded.search)}, /health p99 ${ms(local.loaded.health)} ` +
    `(target <= 10 ms; idle /health p99 ${ms(local.idle.health)})`)
}

const main = async () => {
  const root = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "bench-embed-"))
  try {
    console.log(`local embedding benchmark: ${NodeOs.availableParallelism()} cores, load average ${NodeOs.loadavg().map((n) => n.toFixed(1)).join(" ")}, ` +
      `${TEXTS} texts, batches of ${BATCH}, ${QUERIES} queries over ${TURNS} turns`)
    const lexical = await latency("lexical only", undefined, root)
    console.log(`lexical-only baseline: search p99 ${ms(lexical.idle.search)}, /health p99 ${ms(lexical.idle.health)}; ` +
      `while bulk ingests run with no embedder (${lexical.loaded.ingested} turns): search p99 ${ms(lexical.loaded.search)}, /health p99 ${ms(lexical.loaded.health)}`)
    const tiny = NodePath.join(root, "tiny-model")
    writeTinyModel(tiny)
    await run("tiny model (random weights, 32 dimensions)", tiny, root, lexical.idle)
    if (MODEL !== "") await run(`model ${NodePath.resolve(MODEL)}`, NodePath.resolve(MODEL), root, lexical.idle)
  } finally {
    NodeFs.rmSync(root, { recursive: true, force: true })
  }
}

void main()
