/**
 * Retrieval quality on LoCoMo (../shared/bench/locomo-dev.json, see its README): each
 * conversation ingested verbatim (infer=false) as one user, one session per LoCoMo session;
 * every question of categories 1-4 sent to POST /v1/search. Prints recall@5/10/20 per category
 * beside a plain BM25 baseline over the same turns (k1 1.2, b 0.75, no stemming) computed here,
 * the legs that could not run, and the search latencies seen.
 *
 * Usage: npm run bench:locomo [-- --data ../shared/bench/locomo-dev.json] [--backends sqlite,postgresql]
 *        [--questions out.jsonl]   (each question's evidence and top 20, one JSON line each, for study)
 *        [--embed local --model DIR]   (vectors from a model run in the service's process, e.g. an
 *                                       all-MiniLM-L6-v2 directory; without --model, the tiny
 *                                       random-weight model, whose recall means nothing)
 */
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { createDatabase, startCluster } from "../postgres/cluster.js"
import { writeTinyModel } from "../../src/llm/local/writeTinyModel.js"
import { BENCH_KEY, percentile, startService } from "./support.js"

interface Turn { readonly speaker: string; readonly dia_id: string; readonly text: string }
interface Sample {
  readonly sample_id: string
  readonly conversation: Record<string, unknown> & { readonly speaker_a: string; readonly speaker_b: string }
  readonly qa: ReadonlyArray<{ readonly question: string; readonly evidence: ReadonlyArray<string>; readonly category: number }>
}

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? process.argv[i + 1]! : fallback
}
const DATA = arg("data", NodePath.resolve(import.meta.dirname, "../../../shared/bench/locomo-dev.json"))
const BACKENDS = arg("backends", "sqlite,postgresql").split(",")
const QUESTIONS_OUT = arg("questions", "")
const KEY = BENCH_KEY
const KS = [5, 10, 20] as const
const EMBED = arg("embed", "")
const MODEL = arg("model", "")
if (EMBED !== "" && EMBED !== "local") throw new Error(`--embed takes local, not ${EMBED}`)

/** The service's embedding settings: none (lexical legs only) unless --embed local. */
const embedSettings = (scratch: string): Record<string, string> => {
  if (EMBED !== "local") return {}
  const model = MODEL === "" ? NodePath.join(scratch, "tiny-model") : NodePath.resolve(MODEL)
  if (MODEL === "") writeTinyModel(model)
  return { SERVICE_EMBED_PROVIDER: "local", SERVICE_EMBED_MODEL: model }
}

const CATEGORIES: Record<number, string> = { 1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop" }

const call = async (port: number, path: string, body: unknown) => {
  const started = performance.now()
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  const json = await response.json() as Record<string, unknown>
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`)
  return { json, clientMs: performance.now() - started, serverMs: Number(response.headers.get("x-response-time-ms")) }
}

/** The sessions of a conversation, in order, with their turns that have text. */
const sessionsOf = (conversation: Sample["conversation"]) => {
  const sessions: Array<{ n: number; time: string; turns: Array<Turn> }> = []
  for (let n = 1; Array.isArray(conversation[`session_${n}`]); n++) {
    const turns = (conversation[`session_${n}`] as Array<Turn>).filter((turn) => turn.text.trim() !== "")
    sessions.push({ n, time: String(conversation[`session_${n}_date_time`]), turns })
  }
  return sessions
}

const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []

/** Plain Okapi BM25 over the turns of one conversation: no stemming, no stop words. */
const bm25Index = (docs: ReadonlyArray<{ id: string; text: string }>, k1 = 1.2, b = 0.75) => {
  const tokenized = docs.map((doc) => words(doc.text))
  const avgdl = tokenized.reduce((sum, tokens) => sum + tokens.length, 0) / Math.max(1, docs.length)
  const df = new Map<string, number>()
  for (const tokens of tokenized) for (const term of new Set(tokens)) df.set(term, (df.get(term) ?? 0) + 1)
  const tfs = tokenized.map((tokens) => {
    const tf = new Map<string, number>()
    for (const term of tokens) tf.set(term, (tf.get(term) ?? 0) + 1)
    return tf
  })
  return (query: string, k: number) => {
    const terms = [...new Set(words(query))]
    const scores = docs.map((doc, i) => {
      let score = 0
      for (const term of terms) {
        const tf = tfs[i]!.get(term) ?? 0
        if (tf === 0) continue
        const n = df.get(term) ?? 0
        const idf = Math.log(1 + (docs.length - n + 0.5) / (n + 0.5))
        score += idf * (tf * (k1 + 1)) / (tf + k1 * (1 - b + b * tokenized[i]!.length / avgdl))
      }
      return { id: doc.id, score }
    })
    return scores.filter((s) => s.score > 0).sort((a, c) => c.score - a.score).slice(0, k).map((s) => s.id)
  }
}

const evidenceIds = (evidence: ReadonlyArray<string>) => evidence.flatMap((e) => e.split(/[;,\s]+/)).filter((e) => /^D\d+:\d+$/.test(e))

const recall = (found: ReadonlyArray<string>, expected: ReadonlyArray<string>, k: number) => {
  const top = new Set(found.slice(0, k))
  return expected.filter((id) => top.has(id)).length / expected.length
}

type Scores = Record<number, { ours: Array<Array<number>>; bm25: Array<Array<number>> }>

interface Evaluation {
  readonly scores: Scores
  /** Each conversation's questions, every category together: a rule that helps must help each. */
  readonly byConversation: Record<string, { ours: Array<Array<number>>; bm25: Array<Array<number>> }>
  readonly clientMs: Array<number>
  readonly serverMs: Array<number>
  readonly degradedLegs: Set<string>
  readonly turnsIngested: number
}

/** Ingests every conversation into a running service and scores its search against the questions. */
const evaluate = async (port: number, samples: ReadonlyArray<Sample>): Promise<Evaluation> => {
  const scores: Scores = {}
  const byConversation: Evaluation["byConversation"] = {}
  const clientMs: Array<number> = []
  const serverMs: Array<number> = []
  const degradedLegs = new Set<string>()
  let turnsIngested = 0
  for (const sample of samples) {
    const userId = `locomo-${sample.sample_id}`.replace(/[^A-Za-z0-9._-]/g, "-")
    const byTurnId = new Map<string, string>()
    const docs: Array<{ id: string; text: string }> = []
    for (const session of sessionsOf(sample.conversation)) {
      const sessionId = `session_${session.n}`
      await call(port, "/v1/memories", {
        user_id: userId,
        session_id: sessionId,
        session_time: session.time,
        infer: false,
        async_mode: false,
        messages: session.turns.map((turn) => ({
          role: turn.speaker === sample.conversation.speaker_a ? "user" : "assistant",
          content: `${turn.speaker}: ${turn.text}`
        }))
      })
      session.turns.forEach((turn, i) => {
        byTurnId.set(`ev_raw:${sessionId}_turn_${i + 1}`, turn.dia_id)
        docs.push({ id: turn.dia_id, text: `${turn.speaker}: ${turn.text}` })
      })
      turnsIngested += session.turns.length
    }
    const baseline = bm25Index(docs)
    for (const qa of sample.qa) {
      const expected = evidenceIds(qa.evidence)
      if (!(qa.category in CATEGORIES) || expected.length === 0) continue
      const result = await call(port, "/v1/search", { user_id: userId, query: qa.question, top_k: 20 })
      clientMs.push(result.clientMs)
      serverMs.push(result.serverMs)
      for (const entry of result.json.degraded as Array<{ code: string; details: { channel?: string } }>) degradedLegs.add(`${entry.code}(${entry.details.channel ?? ""})`)
      const found = (result.json.hits as Array<{ id: string; metadata: { evidence_id: string; source_turn_id: string | null } }>)
        .map((hit) => byTurnId.get(hit.metadata.evidence_id) ?? (hit.metadata.source_turn_id === null ? undefined : byTurnId.get(`ev_raw:${hit.metadata.source_turn_id}`)))
        .filter((id): id is string => id !== undefined)
      const plain = baseline(qa.question, 20)
      for (const entry of [scores[qa.category] ??= { ours: [], bm25: [] }, byConversation[sample.sample_id] ??= { ours: [], bm25: [] }]) {
        entry.ours.push(KS.map((k) => recall(found, expected, k)))
        entry.bm25.push(KS.map((k) => recall(plain, expected, k)))
      }
      if (QUESTIONS_OUT !== "") {
        NodeFs.appendFileSync(QUESTIONS_OUT, JSON.stringify({ sample: sample.sample_id, category: qa.category, question: qa.question, expected, found, bm25: plain }) + "\n")
      }
    }
  }
  return { scores, byConversation, clientMs, serverMs, degradedLegs, turnsIngested }
}

const mean = (rows: ReadonlyArray<ReadonlyArray<number>>, i: number) => rows.reduce((sum, row) => sum + row[i]!, 0) / Math.max(1, rows.length)
const fmt = (n: number) => n.toFixed(3).replace(/^0/, "")

/** Prints one backend's table; answers its overall recall at each k. */
const report = (backend: string, samples: number, evaluation: Evaluation) => {
  const { byConversation, clientMs, degradedLegs, scores, serverMs, turnsIngested } = evaluation
  console.log(`LoCoMo retrieval on ${backend}: ${samples} conversations, ${turnsIngested} turns, infer=false, no LLM`)
  console.log("category          n    ours @5/@10/@20      plain BM25 @5/@10/@20")
  const all = { ours: [] as Array<Array<number>>, bm25: [] as Array<Array<number>> }
  for (const [category, name] of Object.entries(CATEGORIES)) {
    const entry = scores[Number(category)]
    if (entry === undefined) continue
    all.ours.push(...entry.ours)
    all.bm25.push(...entry.bm25)
    console.log(`${`${category} ${name}`.padEnd(16)} ${String(entry.ours.length).padStart(4)}    ${KS.map((_, i) => fmt(mean(entry.ours, i))).join(" / ")}    ${KS.map((_, i) => fmt(mean(entry.bm25, i))).join(" / ")}`)
  }
  console.log(`${"overall".padEnd(16)} ${String(all.ours.length).padStart(4)}    ${KS.map((_, i) => fmt(mean(all.ours, i))).join(" / ")}    ${KS.map((_, i) => fmt(mean(all.bm25, i))).join(" / ")}`)
  console.log(`recall@10 over the baseline: ${((mean(all.ours, 1) - mean(all.bm25, 1)) * 100).toFixed(1)} points`)
  console.log(`recall@10 per conversation, ours (plain BM25): ${
    Object.entries(byConversation).map(([id, entry]) => `${id} ${fmt(mean(entry.ours, 1))} (${fmt(mean(entry.bm25, 1))})`).join(", ")
  }`)
  console.log(`legs that could not run: ${[...degradedLegs].join(", ") || "none"}`)
  clientMs.sort((a, b) => a - b)
  serverMs.sort((a, b) => a - b)
  console.log(`search latency, server-side p50/p99: ${percentile(serverMs, 0.5).toFixed(1)} / ${percentile(serverMs, 0.99).toFixed(1)} ms; client-side p50/p99: ${percentile(clientMs, 0.5).toFixed(1)} / ${percentile(clientMs, 0.99).toFixed(1)} ms`)
  console.log("")
  return KS.map((_, i) => mean(all.ours, i))
}

/** The same run on each backend asked for: the embedded SQLite, then PostgreSQL in a throwaway cluster. */
const main = async () => {
  const samples = JSON.parse(NodeFs.readFileSync(DATA, "utf8")) as ReadonlyArray<Sample>
  const dataRoot = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "bench-locomo-"))
  const known = ["SQLite", "PostgreSQL"] as const
  const unknown = BACKENDS.filter((name) => !known.some((backend) => backend.toLowerCase() === name))
  if (unknown.length > 0) throw new Error(`--backends takes sqlite and postgresql, not ${unknown.join(", ")}`)
  const backends = known.filter((backend) => BACKENDS.includes(backend.toLowerCase()))
  if (QUESTIONS_OUT !== "") NodeFs.writeFileSync(QUESTIONS_OUT, "")
  const cluster = backends.includes("PostgreSQL") ? await startCluster({ fsync: true }) : undefined
  const overall: Record<string, ReadonlyArray<number>> = {}
  const embedding = embedSettings(dataRoot)
  console.log(`embeddings: ${embedding.SERVICE_EMBED_MODEL === undefined ? "none (lexical legs only)" : `local, ${embedding.SERVICE_EMBED_MODEL}${MODEL === "" ? " (tiny random-weight model: its recall means nothing)" : ""}`}`)
  try {
    for (const backend of backends) {
      const env: Record<string, string> = {
        ...embedding,
        ...(cluster === undefined || backend === "SQLite" ? {} : { SERVICE_DATABASE_URL: await createDatabase(cluster.url) })
      }
      const server = await startService(NodeFs.mkdtempSync(NodePath.join(dataRoot, "root-")), env)
      try {
        overall[backend] = report(backend, samples.length, await evaluate(server.port, samples))
      } finally {
        await server.stop()
      }
    }
  } finally {
    cluster?.stop()
    NodeFs.rmSync(dataRoot, { recursive: true, force: true })
  }
  const [sqlite, postgres] = [overall.SQLite, overall.PostgreSQL]
  if (sqlite === undefined || postgres === undefined) return
  console.log(`overall recall @5/@10/@20: SQLite ${sqlite.map(fmt).join(" / ")}, PostgreSQL ${postgres.map(fmt).join(" / ")}; ` +
    `PostgreSQL - SQLite at @10: ${(postgres[1]! - sqlite[1]!).toFixed(3)}`)
}

void main()
