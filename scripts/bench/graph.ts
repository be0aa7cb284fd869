/**
 * Graph reads and dream at scale: one user's store with 10,000 entities and 50,000 facts, written
 * in this process through the service's own migrations and fact writes (`insertFact`, `closeFact`,
 * sessions and turns as sources), so rows, roles and edges look like what extraction leaves. Then
 * a real server process (the compiled build, no LLM) over it, timed through HTTP:
 * GET /v1/entity_timeline, GET /v1/explore at depths 1–3, and POST /v1/maintenance/dream until no
 * entity is stale, with the server's RSS after each phase.
 *
 * Entity popularity is Zipf-like (s = 0.7) with every entity mentioned at least once, plus one hub
 * ("User", as extraction names the speaker) in about 5% of facts; about 5% of facts supersede an
 * earlier one about the same entities. The build is seeded, so every run writes the same graph
 * (only the fact and edge ids, fresh UUIDs as the service makes them, differ).
 *
 * Usage: npm run bench:graph [-- --entities 10000 --facts 50000 --queries 200 --batch 500]
 */
import { Reactivity } from "@effect/experimental"
import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { newFactId, spanId } from "../../src/domain/ids.js"
import { closeFact, insertFact } from "../../src/storage/sqlite/user/factWrites.js"
import { openMigrated } from "../../src/storage/sqlite/database.js"
import { userStoreMigrations } from "../../src/storage/sqlite/user/migrations.js"
import { appendTurns } from "../../src/storage/sqlite/user/turns.js"
import { utcTimestamp } from "../../src/util/timestamps.js"
import { STORE_SCHEMA_VERSION } from "../../src/version.js"
import { arg, BENCH_KEY, percentile, startService } from "./support.js"

const ENTITIES = arg("entities", 10_000)
const FACTS = arg("facts", 50_000)
const QUERIES = arg("queries", 200)
const DREAM_BATCH = arg("batch", 500)
const USER = "bench-graph"
const HUB_NAME = "User"
const HUB_SHARE = 0.05
const SUPERSEDE_SHARE = 0.05
const ZIPF_S = 0.7
const FACTS_PER_SESSION = 6
/** Sessions per transaction (about 2,100 facts): few commits, and no transaction holds the whole build. */
const SESSIONS_PER_TX = 350
const WARMUP = 20
const SEED = 20240601

// ---- a seeded graph ----

/** mulberry32: small, seeded, good enough to spread picks; the same store every run. */
const seeded = (seed: number) => {
  let state = seed | 0
  return () => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
const random = seeded(SEED)
const below = (n: number) => Math.floor(random() * n)

// Names from consonant–vowel syllables: no "s", so nothing but the hub contains "user".
const CONSONANTS = "bdfgklmnprtvz"
const VOWELS = "aeiou"
const SYLLABLES = CONSONANTS.length * VOWELS.length
const WORDS = SYLLABLES * SYLLABLES
const syllable = (n: number) => CONSONANTS[n % CONSONANTS.length]! + VOWELS[Math.floor(n / CONSONANTS.length)]!
const word = (n: number) => {
  const text = syllable(n % SYLLABLES) + syllable(Math.floor(n / SYLLABLES) % SYLLABLES)
  return text[0]!.toUpperCase() + text.slice(1)
}
const FIRST_WORDS = 97
/** Entity i's name: 97 first words × up to 4,225 second words (2111 is coprime with 4,225, so distinct). */
const entityName = (i: number) => `${word((i % FIRST_WORDS) * 43 + 11)} ${word((Math.floor(i / FIRST_WORDS) * 2111 + 5) % WORDS)}`

const PREDICATES: ReadonlyArray<readonly [string, string]> = [
  ["works_with", "works with"], ["lives_near", "lives near"], ["met", "met"], ["recommended", "recommended a restaurant to"],
  ["visited", "visited"], ["plays_chess_with", "plays chess with"], ["borrowed_from", "borrowed a book from"], ["called", "called"]
]
const THIRD_ROLES = ["location", "participant", "other"] as const
const HUB = -1
/** Named entities besides the hub, so the store holds ENTITIES in all. */
const NAMED = ENTITIES - 1

interface PlannedFact {
  readonly factId: string
  /** Entity indexes, HUB for the hub; the first is the subject, the second the object. */
  readonly entities: ReadonlyArray<number>
  readonly predicate: readonly [string, string]
  readonly occurred: string | null
  /** The index of the earlier fact this one supersedes. */
  readonly replaces: number | null
}

const dayOf = (offset: number) => new Date(Date.UTC(2022, 0, 1) + offset * 86_400_000).toISOString().slice(0, 10)

/** Zipf-like popularity over ranks, ranks shuffled over entities so popularity does not follow the names. */
const popularity = () => {
  const cumulative = new Float64Array(NAMED)
  let total = 0
  for (let r = 0; r < NAMED; r++) cumulative[r] = total += (r + 1) ** -ZIPF_S
  const entityOfRank = Array.from({ length: NAMED }, (_, i) => i)
  for (let i = NAMED - 1; i > 0; i--) {
    const j = below(i + 1)
    ;[entityOfRank[i], entityOfRank[j]] = [entityOfRank[j]!, entityOfRank[i]!]
  }
  const sample = () => {
    const u = random() * total
    let lo = 0, hi = NAMED - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (cumulative[mid]! < u) lo = mid + 1
      else hi = mid
    }
    return entityOfRank[lo]!
  }
  return { sample, entityOfRank }
}

const planFacts = (sample: () => number) => {
  const facts: Array<PlannedFact> = []
  const superseded = new Set<number>()
  // Entities named so far by a first mention: corrections reuse old entities, so they do not count.
  let introduced = 0
  for (let i = 0; i < FACTS; i++) {
    const predicate = PREDICATES[below(PREDICATES.length)]!
    const occurred = random() < 0.2 ? null : dayOf(below(1000))
    // A correction: a newer statement about the same entities closes an earlier, still current one.
    if (i >= 100 && random() < SUPERSEDE_SHARE) {
      const j = below(i)
      if (!superseded.has(j)) {
        superseded.add(j)
        facts.push({ factId: newFactId(), entities: facts[j]!.entities, predicate, occurred, replaces: j })
        continue
      }
    }
    const count = 1 + below(3)
    // New facts name each entity once before any sampling, so all of them exist; the hub speaks first.
    const entities: Array<number> = random() < HUB_SHARE ? [HUB] : []
    entities.push(introduced < NAMED ? introduced++ : sample())
    for (let tries = 0; entities.length < count && tries < 10; tries++) {
      const next = sample()
      if (!entities.includes(next)) entities.push(next)
    }
    facts.push({ factId: newFactId(), entities, predicate, occurred, replaces: null })
  }
  return facts
}

const nameOf = (entity: number) => entity === HUB ? HUB_NAME : entityName(entity)

const contentOf = (fact: PlannedFact, i: number) => {
  const [subject, object, place] = fact.entities.map(nameOf)
  return `${subject} ${fact.predicate[1]} ${object ?? "an old friend"}${place === undefined ? "" : ` at ${place}`} on ${fact.occurred ?? "a day not said"} (note ${i}).`
}

/** Writes the planned facts session by session, each fact citing its user turn, as extraction does. */
const writeStore = (sql: SqlClient.SqlClient, facts: ReadonlyArray<PlannedFact>) =>
  Effect.gen(function*() {
    const sessions = Math.ceil(facts.length / FACTS_PER_SESSION)
    for (let first = 0; first < sessions; first += SESSIONS_PER_TX) {
      yield* sql.withTransaction(Effect.gen(function*() {
        for (let s = first; s < Math.min(sessions, first + SESSIONS_PER_TX); s++) {
          const millis = Date.UTC(2024, 0, 1) + s * 60_000
          const now = utcTimestamp(millis)
          const sessionId = `session_${s}`
          const sessionDay = dayOf(Math.floor((s * 1000) / sessions))
          const indexes = Array.from({ length: Math.min(FACTS_PER_SESSION, facts.length - s * FACTS_PER_SESSION) }, (_, k) => s * FACTS_PER_SESSION + k)
          const contents = indexes.map((i) => contentOf(facts[i]!, i))
          yield* appendTurns(sql, {
            sessionId,
            sessionTime: `${sessionDay}T19:30:00`,
            turns: [...contents.map((content) => ({ role: "user", content: `By the way: ${content}` })), { role: "assistant", content: "Noted, thanks." }],
            scope: { agent_id: null, run_id: null, project_id: null },
            now
          })
          for (const [k, i] of indexes.entries()) {
            const fact = facts[i]!
            yield* insertFact(sql, {
              factId: fact.factId,
              content: contents[k]!,
              kind: "fact",
              sessionId,
              occurredAt: fact.occurred,
              validFrom: fact.occurred ?? sessionDay,
              confidence: 0.9,
              metadata: {
                support_text: `By the way: ${contents[k]!}`,
                extracted_support_text: contents[k]!,
                predicate_canonical: fact.predicate[0],
                time_precision: fact.occurred === null ? "unknown" : "day",
                time_source: fact.occurred === null ? "session_time" : "extracted",
                extracted_by: { method: "bench" }
              },
              scope: { agent_id: null, run_id: null, project_id: null },
              spanIds: [spanId(sessionId, k + 1)],
              entities: fact.entities.map((entity, position) => ({
                name: nameOf(entity),
                role: position === 0 ? "subject" : position === 1 ? "object" : THIRD_ROLES[i % THIRD_ROLES.length]!
              })),
              predicate: fact.predicate[0]
            }, now, millis / 1000)
            if (fact.replaces !== null) {
              yield* closeFact(sql, { fact_id: facts[fact.replaces]!.factId, kind: "fact" }, {
                newFactId: fact.factId,
                validUntil: fact.occurred ?? sessionDay,
                now,
                epochSeconds: millis / 1000
              })
            }
          }
        }
      }))
    }
    const count = (query: Effect.Effect<ReadonlyArray<{ readonly n: number }>, unknown>) => Effect.map(query, (rows) => rows[0]?.n ?? 0)
    const perEntity = yield* sql<{ readonly entity_id: string; readonly n: number }>`
      SELECT entity_id, count(*) AS n FROM fact_entity_roles GROUP BY entity_id ORDER BY n`
    const others = perEntity.filter((row) => row.entity_id !== "entity_user")
    return {
      ...yield* Effect.all({
        entities: count(sql<{ readonly n: number }>`SELECT count(*) AS n FROM entities`),
        stale: count(sql<{ readonly n: number }>`SELECT count(*) AS n FROM entities WHERE profile_stale = 1`),
        facts: count(sql<{ readonly n: number }>`SELECT count(*) AS n FROM facts`),
        superseded: count(sql<{ readonly n: number }>`SELECT count(*) AS n FROM facts WHERE status = 'superseded'`),
        edges: count(sql<{ readonly n: number }>`SELECT count(*) AS n FROM edges`),
        byType: sql<{ readonly edge_type: string; readonly n: number }>`SELECT edge_type, count(*) AS n FROM edges GROUP BY edge_type ORDER BY n DESC`
      }),
      hubFacts: perEntity.find((row) => row.entity_id === "entity_user")?.n ?? 0,
      topFacts: others.at(-1)?.n ?? 0,
      medianFacts: others[Math.floor(others.length / 2)]?.n ?? 0
    }
  })

const buildStore = (dataRoot: string, facts: ReadonlyArray<PlannedFact>) =>
  Effect.gen(function*() {
    const directory = NodePath.join(dataRoot, USER)
    NodeFs.mkdirSync(directory, { recursive: true })
    const sql = yield* openMigrated({ filename: NodePath.join(directory, "store.db"), migrations: userStoreMigrations, latest: STORE_SCHEMA_VERSION })
    return yield* writeStore(sql, facts)
  }).pipe(Effect.scoped, Effect.provide(Reactivity.layer))

// ---- HTTP ----

interface Timed<T> {
  readonly ms: number
  /** The server's own time (x-response-time-ms), before the body crosses the socket. */
  readonly serverMs: number
  readonly bytes: number
  readonly status: number
  readonly body: T | undefined
}

const call = async <T>(port: number, method: "GET" | "POST", path: string, params: Record<string, string | number>, body?: unknown): Promise<Timed<T>> => {
  const url = new URL(`http://127.0.0.1:${port}${path}`)
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, String(value))
  const started = performance.now()
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${BENCH_KEY}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  const ms = performance.now() - started
  return {
    ms,
    serverMs: Number(response.headers.get("x-response-time-ms") ?? Number.NaN),
    bytes: text.length,
    status: response.status,
    body: response.status === 200 ? JSON.parse(text) as T : undefined
  }
}

interface TimelineBody { readonly count: number }
interface ExploreBody { readonly count: { readonly nodes: number; readonly edges: number }; readonly nodes: ReadonlyArray<unknown>; readonly edges: ReadonlyArray<unknown> }
interface DreamBody { readonly status: string; readonly entities_processed: number; readonly remaining_stale: number }

/** The server's resident set in MiB, from /proc (Linux). */
const rssMiB = (pid: number) => {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(NodeFs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN) / 1024
  } catch {
    return Number.NaN
  }
}

// ---- output ----

const mean = (values: ReadonlyArray<number>) => values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length)
const sortedOf = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)
const fixed = (value: number, digits: number, width: number) => (Number.isFinite(value) ? value.toFixed(digits) : "—").padStart(width)
const latency = (values: ReadonlyArray<number>) => {
  const sorted = sortedOf(values)
  return `${fixed(percentile(sorted, 0.5), 1, 7)} ${fixed(percentile(sorted, 0.95), 1, 7)} ${fixed(percentile(sorted, 0.99), 1, 7)} ${fixed(sorted.at(-1) ?? 0, 1, 7)}`
}
const failures = (results: ReadonlyArray<Timed<unknown>>) => {
  const bad = results.filter((r) => r.status !== 200)
  return bad.length === 0 ? "" : `  ${bad.length} failed (${[...new Set(bad.map((r) => r.status))].join(", ")})`
}

// ---- phases ----

const runTimelines = async (port: number, entityOfRank: ReadonlyArray<number>) => {
  // Names a caller would send: exact popular and tail names, the hub in any case, and fragments that match many names.
  const popular = Array.from({ length: Math.round(QUERIES * 0.25) }, (_, i) => entityName(entityOfRank[i]!))
  const tail = Array.from({ length: Math.round(QUERIES * 0.45) }, () => entityName(entityOfRank[Math.floor(NAMED / 10) + below(NAMED - Math.floor(NAMED / 10))]!))
  const hub = Array.from({ length: Math.round(QUERIES * 0.05) }, (_, i) => [HUB_NAME, "user", "USER"][i % 3]!)
  const substrings = Array.from({ length: QUERIES - popular.length - tail.length - hub.length }, (_, i) => {
    const name = entityName(below(NAMED))
    // Alternately a whole first word (tens of names) and one syllable (past the 200-entity cap).
    return i % 2 === 0 ? name.split(" ")[0]! : name.slice(0, 2)
  })
  const queries = [
    ...popular.map((name) => ({ kind: "popular", name })),
    ...tail.map((name) => ({ kind: "tail", name })),
    ...substrings.map((name) => ({ kind: "substring", name })),
    ...hub.map((name) => ({ kind: "hub", name }))
  ]
  for (let i = queries.length - 1; i > 0; i--) {
    const j = below(i + 1)
    ;[queries[i], queries[j]] = [queries[j]!, queries[i]!]
  }
  for (let i = 0; i < WARMUP; i++) await call<TimelineBody>(port, "GET", "/v1/entity_timeline", { user_id: USER, entity_id: entityName(below(NAMED)) })
  const results: Array<Timed<TimelineBody> & { readonly kind: string }> = []
  for (const query of queries) results.push({ ...await call<TimelineBody>(port, "GET", "/v1/entity_timeline", { user_id: USER, entity_id: query.name }), kind: query.kind })
  console.log(`\nGET /v1/entity_timeline, ${queries.length} names after ${WARMUP} warm-up calls (client ms; server p50 from x-response-time-ms)`)
  console.log("names            n    p50 ms  p95 ms  p99 ms  max ms  server p50   items mean   items max   KiB mean")
  for (const kind of ["all", "popular", "tail", "substring", "hub"]) {
    const rows = results.filter((r) => kind === "all" || r.kind === kind)
    const items = rows.map((r) => r.body?.count ?? 0)
    console.log(`${kind.padEnd(13)} ${String(rows.length).padStart(4)}   ${latency(rows.map((r) => r.ms))} ${fixed(percentile(sortedOf(rows.map((r) => r.serverMs)), 0.5), 1, 11)} ${
      fixed(mean(items), 1, 12)
    } ${fixed(Math.max(...items), 0, 11)} ${fixed(mean(rows.map((r) => r.bytes)) / 1024, 1, 10)}${failures(rows)}`)
  }
}

const runExplores = async (port: number, facts: ReadonlyArray<PlannedFact>) => {
  const starts = Array.from({ length: QUERIES }, () => facts[below(facts.length)]!)
  for (let i = 0; i < WARMUP; i++) await call<ExploreBody>(port, "GET", "/v1/explore", { user_id: USER, start_id: facts[below(facts.length)]!.factId, depth: 2 })
  console.log(`\nGET /v1/explore from ${starts.length} random facts (any status; ${starts.filter((f) => f.entities.includes(HUB)).length} name the hub) after ${WARMUP} warm-up calls (client ms)`)
  console.log("depth limit   p50 ms  p95 ms  p99 ms  max ms  server p50   edges mean  nodes mean  count.edges mean / max   hub starts p50 ms")
  for (const [depth, limit] of [[1, 25], [2, 25], [3, 25], [2, 100]] as const) {
    const results: Array<Timed<ExploreBody> & { readonly hub: boolean }> = []
    for (const start of starts) {
      results.push({ ...await call<ExploreBody>(port, "GET", "/v1/explore", { user_id: USER, start_id: start.factId, depth, limit }), hub: start.entities.includes(HUB) })
    }
    const found = results.map((r) => r.body?.count.edges ?? 0)
    console.log(`${String(depth).padStart(5)} ${String(limit).padStart(5)}  ${latency(results.map((r) => r.ms))} ${fixed(percentile(sortedOf(results.map((r) => r.serverMs)), 0.5), 1, 11)} ${
      fixed(mean(results.map((r) => r.body?.edges.length ?? 0)), 1, 12)
    } ${fixed(mean(results.map((r) => r.body?.nodes.length ?? 0)), 1, 11)} ${fixed(mean(found), 0, 17)} / ${String(Math.max(...found)).padEnd(6)} ${
      fixed(percentile(sortedOf(results.filter((r) => r.hub).map((r) => r.ms)), 0.5), 1, 17)
    }${failures(results)}`)
  }
}

const runDream = async (port: number) => {
  const times: Array<number> = []
  let processed = 0, remaining = Number.NaN
  const started = performance.now()
  // Bounded: a store that never reached 0 stale would otherwise loop forever.
  for (let calls = 0; calls < Math.ceil(ENTITIES / DREAM_BATCH) * 2 + 2 && remaining !== 0; calls++) {
    const result = await call<DreamBody>(port, "POST", "/v1/maintenance/dream", {}, { user_id: USER, batch_size: DREAM_BATCH })
    if (result.body === undefined) throw new Error(`dream: status ${result.status}`)
    times.push(result.ms)
    processed += result.body.entities_processed
    remaining = result.body.remaining_stale
  }
  const seconds = (performance.now() - started) / 1000
  const sorted = sortedOf(times)
  console.log(`\nPOST /v1/maintenance/dream, batch_size ${DREAM_BATCH}, sync, no LLM (digest profiles), until nothing is stale`)
  console.log(`  ${processed} entities in ${seconds.toFixed(1)} s: ${(processed / seconds).toFixed(0)} entities/s; ${times.length} calls, ms per call p50 ${
    percentile(sorted, 0.5).toFixed(0)
  }, p95 ${percentile(sorted, 0.95).toFixed(0)}, max ${(sorted.at(-1) ?? 0).toFixed(0)}; final remaining_stale ${remaining}`)
  const noop = await call<DreamBody>(port, "POST", "/v1/maintenance/dream", {}, { user_id: USER, batch_size: DREAM_BATCH })
  console.log(`  then one call with nothing stale: ${noop.ms.toFixed(1)} ms (server ${noop.serverMs.toFixed(1)} ms), ${noop.body?.entities_processed ?? "?"} processed`)
  if (remaining !== 0) throw new Error(`dream left ${remaining} entities stale`)
}

const main = async () => {
  if (!Number.isInteger(ENTITIES) || ENTITIES < 100 || ENTITIES > FIRST_WORDS * WORDS) throw new Error(`--entities must be 100..${FIRST_WORDS * WORDS}`)
  const dataRoot = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "bench-graph-"))
  // No LLM: dream then writes deterministic digests, and nothing waits on a provider.
  delete process.env["SERVICE_LLM_API_KEY"]
  delete process.env["SERVICE_EMBED_API_KEY"]
  let server: Awaited<ReturnType<typeof startService>> | undefined
  try {
    const buildStarted = performance.now()
    const { entityOfRank, sample } = popularity()
    const facts = planFacts(sample)
    const built = await Effect.runPromise(buildStore(dataRoot, facts))
    const buildSeconds = (performance.now() - buildStarted) / 1000
    console.log(`graph benchmark: ${NodeOs.cpus().length} cores; one user's store built in ${buildSeconds.toFixed(1)} s through insertFact/closeFact`)
    console.log(`  ${built.entities} entities (${built.stale} stale), ${built.facts} facts (${built.superseded} superseded), ${built.edges} edges (${
      built.byType.map((row) => `${row.edge_type} ${row.n}`).join(", ")
    })`)
    console.log(`  facts per entity: hub '${HUB_NAME}' ${built.hubFacts}, most popular other ${built.topFacts}, median ${built.medianFacts}`)

    server = await startService(dataRoot, { SERVICE_REQUEST_LOG_MAX: "0" })
    const pid = server.pid
    const rss: Array<readonly [string, number]> = [["idle", rssMiB(pid)]]
    await runTimelines(server.port, entityOfRank)
    rss.push(["after timeline", rssMiB(pid)])
    await runExplores(server.port, facts)
    rss.push(["after explore", rssMiB(pid)])
    await runDream(server.port)
    rss.push(["after dream", rssMiB(pid)])
    console.log(`\nserver RSS: ${rss.map(([phase, mib]) => `${phase} ${mib.toFixed(0)} MiB`).join(", ")}`)
  } finally {
    await server?.stop()
    NodeFs.rmSync(dataRoot, { recursive: true, force: true })
  }
}

void main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
