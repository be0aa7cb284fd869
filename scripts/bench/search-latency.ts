/**
 * Search and context latency at scale, SQLite and PostgreSQL in one run: one user holding N
 * facts (10k and 100k), queried through HTTP (a real server process, the compiled build), one
 * client sending LoCoMo questions one after another, after a warm-up pass. The facts are written
 * straight into each backend's schema (100k through the LLM would take hours): into the store
 * file for SQLite, by multi-row INSERT ... SELECT for PostgreSQL (scripts/bench/postgresSeed.ts),
 * each with a 512-d vector near the deterministic stub's embedding (scripts/stubs). Each store is
 * queried twice: lexical legs only (no embedder), then with the stub as the embedder, so the
 * vector legs run too. SQLite's figures stand beside the same queries run directly on its store
 * file (the floor); PostgreSQL's beside its target.
 *
 * Usage: npm run bench:latency [-- --sizes 10000,100000 --queries 150 --warmup 20 --dimensions 512]
 * (or BENCH_SIZES, BENCH_QUERIES, BENCH_WARMUP, BENCH_DIMENSIONS)
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
import { createDatabase, startCluster } from "../postgres/cluster.js"
import { stubEmbedding } from "../stubs/embedding.js"
import { startProviderStub } from "../stubs/llm-providers.js"
import { questions, seededFact, seededVector } from "./corpus.js"
import { seedPostgresFacts } from "./postgresSeed.js"
import { arg, listArg, postJson, rssMiB, startService, stats } from "./support.js"

const SIZES = listArg("sizes", [10_000, 100_000])
const QUERIES = arg("queries", 150)
const WARMUP = arg("warmup", 20)
const DIMENSIONS = arg("dimensions", 512)
const EMBED_MODEL = "stub-embed"
const USER = "bench-user"

type Stats = ReturnType<typeof stats>
type Backend = "SQLite" | "PostgreSQL"

/** A user's data on one backend, ready for a server: its data root and the server's environment. */
interface Store {
  readonly backend: Backend
  readonly dataRoot: string
  readonly env: Record<string, string>
  /** The same queries straight on the store, without the service (SQLite only). */
  readonly floor?: (withVectors: boolean) => Stats
}

const asBytes = (vector: Float32Array) => new Uint8Array(vector.buffer)

/** One ingest through a server creates the user with the service's own schema. */
const createUser = async (dataRoot: string, env: Record<string, string>) => {
  const server = await startServer(dataRoot, env)
  await postJson(server.port, "/v1/memories", { user_id: USER, session_id: "seed", infer: false, async_mode: false, messages: [{ content: "seed" }] })
  await server.stop()
}

/** A data root whose user store holds `size` facts with their vectors, bulk-loaded into the server's own schema. */
const sqliteStore = async (size: number): Promise<Store> => {
  const dataRoot = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), `bench-latency-${size}-`))
  await createUser(dataRoot, {})
  const db = new Database(NodePath.join(dataRoot, USER, "store.db"))
  const insert = db.prepare(`INSERT INTO facts (fact_id, content, kind, status, session_id, occurred_at, valid_from, confidence, metadata, created_at, updated_at)
    VALUES (?, ?, 'fact', 'active', 'seed', ?, ?, 0.9, '{}', 'x', 'x')`)
  db.loadExtension(SqliteVec.getLoadablePath())
  // The tables the service creates with a store's first vectors (store/user/vectors.ts).
  db.exec(`INSERT INTO store_meta (key, value) VALUES ('embedding_model', '${EMBED_MODEL}'), ('embedding_dimensions', '${DIMENSIONS}');
    CREATE TABLE fact_vector_data (seq INTEGER PRIMARY KEY, embedding BLOB NOT NULL);
    CREATE TABLE turn_vector_data (seq INTEGER PRIMARY KEY, embedding BLOB NOT NULL);
    CREATE VIRTUAL TABLE fact_vectors USING vec0 (embedding bit[${DIMENSIONS}]);
    CREATE VIRTUAL TABLE turn_vectors USING vec0 (embedding bit[${DIMENSIONS}]);`)
  const exact = db.prepare("INSERT INTO fact_vector_data (seq, embedding) VALUES (?, ?)")
  const bits = db.prepare("INSERT INTO fact_vectors (rowid, embedding) VALUES (?, vec_quantize_binary(?))")
  db.transaction(() => {
    for (let i = 0; i < size; i++) {
      const fact = seededFact(i)
      const { lastInsertRowid } = insert.run(fact.factId, fact.content, fact.day, fact.day)
      const vector = asBytes(seededVector(fact.content, i, DIMENSIONS))
      exact.run(lastInsertRowid, vector)
      bits.run(BigInt(lastInsertRowid), vector)
    }
  })()
  db.pragma("wal_checkpoint(TRUNCATE)")
  db.close()
  return { backend: "SQLite", dataRoot, env: {}, floor: (withVectors) => timeFloor(dataRoot, withVectors) }
}

/** A new database in the cluster whose user holds `size` facts with their vectors. */
const postgresStore = async (clusterUrl: string, size: number): Promise<Store> => {
  const url = await createDatabase(clusterUrl)
  const dataRoot = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), `bench-latency-pg-${size}-`))
  const env = { SERVICE_DATABASE_URL: url }
  await createUser(dataRoot, env)
  await seedPostgresFacts({ url, userId: USER, count: size, embedding: { model: EMBED_MODEL, dimensions: DIMENSIONS } })
  return { backend: "PostgreSQL", dataRoot, env }
}

const startServer = (dataRoot: string, env: Record<string, string>, embeddings?: string) =>
  startService(dataRoot, {
    SERVICE_REQUEST_LOG_MAX: "0",
    ...env,
    ...(embeddings === undefined ? {} : { SERVICE_LLM_API_KEY: "stub", SERVICE_LLM_BASE_URL: embeddings, SERVICE_EMBED_MODEL: EMBED_MODEL })
  })

/** `count` questions in turn from one client; server-side and client-side times, and the legs that could not run. */
const timeHttp = async (port: number, path: string, count = QUERIES) => {
  const serverMs: Array<number> = []
  const clientMs: Array<number> = []
  const degraded = new Set<string>()
  for (let i = 0; i < count; i++) {
    const result = await postJson(port, path, { user_id: USER, query: questions[i % questions.length]! })
    serverMs.push(result.serverMs)
    clientMs.push(result.clientMs)
    for (const entry of result.answer.degraded ?? []) degraded.add(`${entry.code}(${entry.details.channel ?? ""})`)
  }
  return { ...stats(serverMs), clientP99: stats(clientMs).p99, degraded }
}

/** The queries search runs for its fact legs (the same term selection; vec0 with vectors), straight on the store file. */
const timeFloor = (dataRoot: string, withVectors: boolean) => {
  const db = new Database(NodePath.join(dataRoot, USER, "store.db"), { readonly: true })
  db.loadExtension(SqliteVec.getLoadablePath())
  const query = db.prepare(`SELECT f.fact_id, f.content FROM facts_fts JOIN facts f ON f.seq = facts_fts.rowid
    WHERE facts_fts MATCH ? AND f.status = 'active' ORDER BY bm25(facts_fts), f.seq LIMIT 60`)
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
    if (withVectors) nearest(asBytes(Float32Array.from(stubEmbedding(question, DIMENSIONS))))
    times.push(performance.now() - started)
  }
  db.close()
  return stats(times)
}

/** The targets at 100,000 facts (p99, server-side). */
const TARGETS: Record<Backend, Partial<Record<string, number>>> = { SQLite: { search: 15, context: 25 }, PostgreSQL: { search: 25 } }

const target = (backend: Backend, size: number, route: string, p99: number) => {
  const limit = size === 100_000 ? TARGETS[backend][route] : undefined
  return limit === undefined ? "" : `p99 <= ${limit} ms: ${p99 <= limit ? "met" : "MISSED"}`
}

interface Row {
  readonly backend: Backend
  readonly size: number
  readonly legs: string
  readonly route: string
  readonly result: Awaited<ReturnType<typeof timeHttp>>
  readonly floor: Stats | undefined
  readonly rss: number
}

/** Both routes through a server over the store, lexical legs only and then with the embedder; the first search's time. */
const measure = async (store: Store, size: number, stubUrl: string, rows: Array<Row>, firsts: Array<string>) => {
  for (const withVectors of [false, true]) {
    const floor = store.floor?.(withVectors)
    const server = await startServer(store.dataRoot, store.env, withVectors ? stubUrl : undefined)
    const first = await timeHttp(server.port, "/v1/search", 1)
    await timeHttp(server.port, "/v1/search", WARMUP)
    await timeHttp(server.port, "/v1/context", WARMUP)
    const search = await timeHttp(server.port, "/v1/search")
    const context = await timeHttp(server.port, "/v1/context")
    const rss = rssMiB(server.pid)
    await server.stop()
    const legs = withVectors ? `lexical+${DIMENSIONS}-d` : "lexical"
    for (const [route, result] of [["search", search], ["context", context]] as const) rows.push({ backend: store.backend, size, legs, route, result, floor, rss })
    firsts.push(`${store.backend} ${size} facts, ${legs}: ${first.p50.toFixed(1)} ms`)
  }
}

const fixed = (value: number, digits = 1) => value.toFixed(digits)

const main = async () => {
  const stub = await startProviderStub({ provider: "openai", dimensions: DIMENSIONS })
  const cluster = await startCluster({ fsync: true })
  const rows: Array<Row> = []
  const firsts: Array<string> = []
  try {
    for (const size of SIZES) {
      for (const seed of [sqliteStore, (n: number) => postgresStore(cluster.url, n)]) {
        const started = performance.now()
        const store = await seed(size)
        console.log(`${store.backend}: ${size} facts seeded in ${fixed((performance.now() - started) / 1000)} s`)
        await measure(store, size, stub.url, rows, firsts)
        NodeFs.rmSync(store.dataRoot, { recursive: true, force: true })
      }
    }
  } finally {
    cluster.stop()
    await stub.close()
  }
  console.log(`\nsearch/context latency: ${QUERIES} LoCoMo questions a route from one client after ${WARMUP} of each, ${NodeOs.cpus().length} cores; server-side times (x-response-time-ms) unless marked client`)
  console.log("backend     facts    legs             route     p50 ms   p95 ms   p99 ms   client p99   floor p99   p99/floor   server RSS   target at 100k")
  for (const { backend, floor, legs, result, route, rss, size } of rows) {
    console.log(`${backend.padEnd(11)} ${String(size).padStart(6)}   ${legs.padEnd(16)} ${route.padEnd(8)} ${fixed(result.p50).padStart(7)}  ${fixed(result.p95).padStart(7)}  ${fixed(result.p99).padStart(7)}  ${fixed(result.clientP99).padStart(11)}  ` +
      `${(floor === undefined ? "-" : fixed(floor.p99, 2)).padStart(10)}  ${(floor === undefined ? "-" : `${fixed(result.p99 / floor.p99)}x`).padStart(10)}   ${fixed(rss, 0).padStart(6)} MiB   ${target(backend, size, route, result.p99)}`)
  }
  console.log("\nside by side (server-side p50 / p99 ms)")
  console.log("facts    legs             route     SQLite          PostgreSQL      PostgreSQL target")
  for (const row of rows.filter((r) => r.backend === "SQLite")) {
    const other = rows.find((r) => r.backend === "PostgreSQL" && r.size === row.size && r.legs === row.legs && r.route === row.route)
    const pair = (r: Row | undefined) => (r === undefined ? "-" : `${fixed(r.result.p50)} / ${fixed(r.result.p99)}`).padEnd(15)
    console.log(`${String(row.size).padStart(6)}   ${row.legs.padEnd(16)} ${row.route.padEnd(8)}  ${pair(row)} ${pair(other)} ${other === undefined ? "" : target("PostgreSQL", row.size, row.route, other.result.p99)}`)
  }
  const degraded = [...new Set(rows.filter((r) => r.legs !== "lexical").flatMap((r) => [...r.result.degraded]))]
  console.log(`legs that could not run with the embedder: ${degraded.join(", ") || "none"}`)
  // The store is opened, and with vectors its bit index loaded, by the first search after a start.
  console.log(`first search after the server starts: ${firsts.join("; ")}`)
}

void main()
