/**
 * Search and context latency at scale: one user's store holding N facts (10k and 100k), queried
 * through HTTP (a real server process, the compiled build) beside the same queries run directly
 * on the store file (the floor), with the server's RSS. Each size runs twice: lexical legs only
 * (no embedder), then with 512-d vectors on every fact from the deterministic embedding stub
 * (scripts/stubs), the server embedding queries through it and the floor adding the same two-stage
 * vector query (binary candidates, exact re-ranking).
 *
 * Usage: npm run bench:latency [-- --sizes 10000,100000 --queries 300 --dimensions 512]
 */
import Database from "better-sqlite3"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as SqliteVec from "sqlite-vec"
import { stemmer } from "stemmer"
import { analyseQuery } from "../../src/retrieval/query.js"
import { selectiveTerms } from "../../src/storage/lexicalTerms.js"
import { ftsExpression } from "../../src/storage/sqlite/user/recall/lexical.js"
import { stubEmbedding } from "../stubs/embedding.js"
import { startProviderStub } from "../stubs/llm-providers.js"
import { BENCH_KEY, percentile, startService } from "./support.js"

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? process.argv[i + 1]! : fallback
}
const SIZES = arg("sizes", "10000,100000").split(",").map(Number)
const QUERIES = Number(arg("queries", "300"))
const DIMENSIONS = Number(arg("dimensions", "512"))
const KEY = BENCH_KEY
const USER = "bench-user"

interface Sample { readonly conversation: Record<string, unknown>; readonly qa: ReadonlyArray<{ readonly question: string }> }
const locomo = JSON.parse(NodeFs.readFileSync(NodePath.resolve(import.meta.dirname, "../../../shared/bench/locomo-dev.json"), "utf8")) as ReadonlyArray<Sample>
const sentences = locomo.flatMap((sample) =>
  Object.entries(sample.conversation).filter(([key, value]) => /^session_\d+$/.test(key) && Array.isArray(value))
    .flatMap(([, turns]) => (turns as Array<{ speaker: string; text: string }>).map((turn) => `${turn.speaker}: ${turn.text}`)))
const questions = locomo.flatMap((sample) => sample.qa.map((qa) => qa.question))

const stats = (values: Array<number>) => {
  values.sort((a, b) => a - b)
  return { p50: percentile(values, 0.5), p95: percentile(values, 0.95), p99: percentile(values, 0.99) }
}

/** A data root whose user store holds `size` facts, written through the server's own schema. */
const asBytes = (vector: ReadonlyArray<number>) => new Uint8Array(Float32Array.from(vector).buffer)

const buildStore = async (size: number, withVectors: boolean) => {
  const dataRoot = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), `bench-latency-${size}-`))
  const server = await startServer(dataRoot)
  // One ingest creates the store with the service's migrations; the facts are then bulk-loaded.
  await fetch(`http://127.0.0.1:${server.port}/v1/memories`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ user_id: USER, session_id: "seed", infer: false, async_mode: false, messages: [{ content: "seed" }] })
  })
  await server.stop()
  const db = new Database(NodePath.join(dataRoot, USER, "store.db"))
  const insert = db.prepare(`INSERT INTO facts (fact_id, content, kind, status, session_id, occurred_at, valid_from, confidence, metadata, created_at, updated_at)
    VALUES (?, ?, 'fact', 'active', 'seed', ?, ?, 0.9, '{}', 'x', 'x')`)
  db.loadExtension(SqliteVec.getLoadablePath())
  if (withVectors) {
    // The tables the service creates with a store's first vectors (store/user/vectors.ts).
    db.exec(`INSERT INTO store_meta (key, value) VALUES ('embedding_model', 'stub-embed'), ('embedding_dimensions', '${DIMENSIONS}');
      CREATE TABLE fact_vector_data (seq INTEGER PRIMARY KEY, embedding BLOB NOT NULL);
      CREATE TABLE turn_vector_data (seq INTEGER PRIMARY KEY, embedding BLOB NOT NULL);
      CREATE VIRTUAL TABLE fact_vectors USING vec0 (embedding bit[${DIMENSIONS}]);
      CREATE VIRTUAL TABLE turn_vectors USING vec0 (embedding bit[${DIMENSIONS}]);`)
  }
  const exact = withVectors ? db.prepare("INSERT INTO fact_vector_data (seq, embedding) VALUES (?, ?)") : undefined
  const bits = withVectors ? db.prepare("INSERT INTO fact_vectors (rowid, embedding) VALUES (?, vec_quantize_binary(?))") : undefined
  db.transaction(() => {
    for (let i = 0; i < size; i++) {
      const day = `2023-${String(1 + (i % 12)).padStart(2, "0")}-${String(1 + (i % 28)).padStart(2, "0")}`
      const content = `${sentences[i % sentences.length]} (${i})`
      const { lastInsertRowid } = insert.run(`fact_${i}`, content, day, day)
      if (withVectors) {
        const vector = asBytes(stubEmbedding(content, DIMENSIONS))
        exact!.run(lastInsertRowid, vector)
        bits!.run(BigInt(lastInsertRowid), vector)
      }
    }
  })()
  db.pragma("wal_checkpoint(TRUNCATE)")
  db.close()
  return dataRoot
}

const startServer = (dataRoot: string, embeddings?: string) =>
  startService(dataRoot, {
    SERVICE_REQUEST_LOG_MAX: "0",
    ...(embeddings === undefined ? {} : { SERVICE_LLM_API_KEY: "stub", SERVICE_LLM_BASE_URL: embeddings, SERVICE_EMBED_MODEL: "stub-embed" })
  })

const rssMiB = (pid: number) => {
  const status = NodeFs.readFileSync(`/proc/${pid}/status`, "utf8")
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
}

const timeHttp = async (port: number, path: string, body: (q: string) => unknown, count = QUERIES) => {
  const serverMs: Array<number> = []
  for (let i = 0; i < count; i++) {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: JSON.stringify(body(questions[i % questions.length]!))
    })
    await response.text()
    if (response.status !== 200) throw new Error(`${path}: ${response.status}`)
    serverMs.push(Number(response.headers.get("x-response-time-ms")))
  }
  return stats(serverMs)
}

/** The queries search runs for its fact legs (the same term selection; vec0 with vectors), straight on the store file. */
const timeFloor = (dataRoot: string, withVectors: boolean) => {
  const db = new Database(NodePath.join(dataRoot, USER, "store.db"), { readonly: true })
  db.loadExtension(SqliteVec.getLoadablePath())
  const query = db.prepare(`SELECT f.fact_id, f.content FROM facts_fts JOIN facts f ON f.seq = facts_fts.rowid
    WHERE facts_fts MATCH ? AND f.status = 'active' ORDER BY bm25(facts_fts) LIMIT 30`)
  const nearest = (() => {
    if (!withVectors) return () => undefined
    const candidates = db.prepare("SELECT rowid FROM fact_vectors WHERE embedding MATCH vec_quantize_binary(?) AND k = 120")
    const rescore = db.prepare(`SELECT seq, vec_distance_cosine(embedding, ?) AS distance FROM fact_vector_data
      WHERE seq IN (SELECT value FROM json_each(?)) ORDER BY distance LIMIT 30`)
    return (vector: Uint8Array) => rescore.all(vector, JSON.stringify((candidates.all(vector) as Array<{ rowid: number }>).map((c) => c.rowid)))
  })()
  const frequency = db.prepare("SELECT doc FROM facts_vocab WHERE term = ?")
  const times: Array<number> = []
  for (let i = 0; i < QUERIES; i++) {
    const question = questions[i % questions.length]!
    const started = performance.now()
    const terms = selectiveTerms(analyseQuery(question).terms, (term) => (frequency.get(stemmer(term)) as { doc: number } | undefined)?.doc ?? 0)
    if (terms.length > 0) query.all(ftsExpression(terms))
    if (withVectors) nearest(asBytes(stubEmbedding(question, DIMENSIONS)))
    times.push(performance.now() - started)
  }
  db.close()
  return stats(times)
}

const main = async () => {
  const stub = await startProviderStub({ provider: "openai", dimensions: DIMENSIONS })
  console.log(`search/context latency: ${QUERIES} LoCoMo questions per run, ${NodeOs.cpus().length} cores, server-side times`)
  const firsts: Array<string> = []
  console.log("facts      legs              route     p50 ms   p95 ms   p99 ms   floor p99   ratio p99   server RSS")
  for (const size of SIZES) {
    for (const withVectors of [false, true]) {
      const dataRoot = await buildStore(size, withVectors)
      const floor = timeFloor(dataRoot, withVectors)
      const server = await startServer(dataRoot, withVectors ? stub.url : undefined)
      const first = await timeHttp(server.port, "/v1/search", (q) => ({ user_id: USER, query: q }), 1)
      await timeHttp(server.port, "/v1/search", (q) => ({ user_id: USER, query: q }))
      const search = await timeHttp(server.port, "/v1/search", (q) => ({ user_id: USER, query: q }))
      const context = await timeHttp(server.port, "/v1/context", (q) => ({ user_id: USER, query: q }))
      const rss = rssMiB(server.pid)
      await server.stop()
      NodeFs.rmSync(dataRoot, { recursive: true, force: true })
      const legs = withVectors ? `lexical+${DIMENSIONS}-d` : "lexical"
      for (const [name, r] of [["search", search], ["context", context]] as const) {
        console.log(`${String(size).padEnd(10)} ${legs.padEnd(17)} ${name.padEnd(8)} ${r.p50.toFixed(1).padStart(7)}  ${r.p95.toFixed(1).padStart(7)}  ${r.p99.toFixed(1).padStart(7)}   ${floor.p99.toFixed(2).padStart(9)}   ${(r.p99 / floor.p99).toFixed(1).padStart(8)}x   ${rss.toFixed(0)} MiB`)
      }
      firsts.push(`${size} facts, ${legs}: ${first.p50.toFixed(1)} ms`)
    }
  }
  // The store is opened, and with vectors its bit index loaded, by the first search after a start.
  console.log(`first search after the server starts: ${firsts.join("; ")}`)
  await stub.close()
}

void main()
