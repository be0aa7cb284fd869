import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Redacted, Scope } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { withClient } from "../scripts/postgres/cluster.js"
import { startProviderStub } from "../scripts/stubs/llm-providers.js"
import { progressLine } from "../src/cli/progress.js"
import { postgresTransferEnd } from "../src/storage/postgres/transfer/PostgresTransferEnd.js"
import { sqliteTransferEnd } from "../src/storage/sqlite/transfer/SqliteTransferEnd.js"
import { userState } from "../src/storage/transfer/compare.js"
import { verifyCounts } from "../src/storage/transfer/verify.js"
import { runCli } from "./support/cli.js"
import { llmEnv } from "./support/llm.js"
import { freshDatabase } from "./support/postgres.js"
import { authHeaders, rawFetch, sendJson, startServer, tempDataRoot, waitForJob } from "./support/server.js"
import { queryStore } from "./support/stores.js"

const PASSWORD = "s3cret-migrate-pw"
const USERS = ["alice", "bob"]

/** The CLI with a clean environment and stderr a pipe. */
const cli = (args: ReadonlyArray<string>, env: Record<string, string> = {}) => runCli(args, { env, timeoutMs: 60_000 })

interface Summary {
  readonly source: string
  readonly target: string
  readonly users: { readonly total: number; readonly copied: number; readonly recopied: number; readonly skipped: number }
  readonly control: Record<string, { readonly copied: number; readonly skipped: number }>
  readonly rows: Record<string, number>
  readonly control_rows: Record<string, number>
}

/** Runs migrate, which must succeed: its JSON summary. */
const migrated = (args: ReadonlyArray<string>) =>
  Effect.map(cli(["migrate", ...args, "--json"]), (run) => {
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: expect.stringMatching(/^migrated \d+ users/) })
    expect(run.stdout + run.stderr).not.toContain(PASSWORD)
    return JSON.parse(run.stdout) as Summary
  })

/** A fresh database, its URL carrying a password (the cluster trusts local connections, so it is never checked). */
const databaseWithPassword = Effect.map(freshDatabase, (url) => {
  const parsed = new URL(url)
  parsed.password = PASSWORD
  return parsed.toString()
})

const query = <Row>(url: string, text: string, params: ReadonlyArray<unknown> = []) =>
  Effect.promise(() => withClient(url, async (client) => (await client.query(text, [...params])).rows as Array<Row>))

const get = (url: string) => Effect.map(rawFetch(url, { headers: authHeaders() }), (response) => response.body)

/** Builds a deployment through a real server: verbatim and extracted memories, a correction, an archive, a purge, profiles, a job, a named key. */
const buildDeployment = (env: Record<string, string>, dataRoot: string) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const { baseUrl } = yield* startServer({ ...env, SERVICE_ALLOW_PURGE: "true", SERVICE_DATA_ROOT: dataRoot }).pipe(Scope.extend(scope))
    const add = (userId: string, contents: ReadonlyArray<string>, extra: Record<string, unknown> = {}) =>
      sendJson(`${baseUrl}/v1/memories`, { user_id: userId, async_mode: false, messages: contents.map((content) => ({ content })), ...extra })
    yield* add("alice", ["I bought a new car last week.", "We watched a movie on Sunday."], { infer: false, session_id: "verbatim" })
    yield* add("alice", ["I moved to Berlin last year.", "I work at Acme Corp.", "I play chess on Fridays."], { session_id: "facts", session_time: "2024-03-05" })
    yield* add("bob", ["I drink green tea every morning.", "My sister lives in Porto."], { infer: false })
    const facts = (yield* get(`${baseUrl}/v1/memories?user_id=alice&limit=100`)) as { memories: Array<{ id: string; content: string }> }
    const berlin = facts.memories.find((fact) => fact.content.includes("Berlin"))!
    const acme = facts.memories.find((fact) => fact.content.includes("Acme"))!
    expect((yield* sendJson(`${baseUrl}/v1/memories/${berlin.id}`, { user_id: "alice", content: "I moved to Lisbon in March." }, "PATCH")).status).toBe(200)
    expect((yield* rawFetch(`${baseUrl}/v1/memories/${acme.id}?user_id=alice`, { method: "DELETE", headers: authHeaders() })).status).toBe(200)
    const chess = facts.memories.find((fact) => fact.content.includes("chess"))!
    const purged = yield* rawFetch(`${baseUrl}/v1/memories/${chess.id}?user_id=alice&purge=true`, { method: "DELETE", headers: authHeaders() })
    expect(purged.body).toMatchObject({ purged: true })
    expect((yield* sendJson(`${baseUrl}/v1/maintenance/dream`, { user_id: "alice" })).status).toBe(200)
    const queued = yield* add("alice", ["I adopted a beagle named Rex."], { async_mode: true })
    yield* waitForJob(baseUrl, (queued.body as { job_id: string }).job_id)
    const key = ((yield* sendJson(`${baseUrl}/v1/admin/keys`, { name: "ci" })).body as { api_key: string }).api_key
    // The superseded version stays readable, the archived one is 404: both compared too.
    const views = yield* viewsOf(baseUrl, [berlin.id, acme.id])
    yield* Scope.close(scope, Exit.void)
    return { key, jobId: (queued.body as { job_id: string }).job_id, views, versions: [berlin.id, acme.id] }
  })

/** What the API answers about every user: memories and each one's record, events, graph reads, searches; and the control plane. */
const viewsOf = (baseUrl: string, alsoGet: ReadonlyArray<string> = []) =>
  Effect.gen(function*() {
    const views: Record<string, unknown> = {}
    for (const id of alsoGet) {
      const { body, status } = yield* rawFetch(`${baseUrl}/v1/memories/${id}?user_id=alice`, { headers: authHeaders() })
      views[`alice/version/${id}`] = { body, status }
    }
    for (const userId of USERS) {
      const list = (yield* get(`${baseUrl}/v1/memories?user_id=${userId}&limit=100`)) as { memories: Array<{ id: string }> }
      views[`${userId}/list`] = list
      for (const memory of list.memories) views[`${userId}/get/${memory.id}`] = yield* get(`${baseUrl}/v1/memories/${memory.id}?user_id=${userId}`)
      views[`${userId}/events`] = yield* get(`${baseUrl}/v1/events?user_id=${userId}&limit=200`)
      views[`${userId}/timeline`] = yield* get(`${baseUrl}/v1/entity_timeline?user_id=${userId}&entity=lisbon`)
      const first = list.memories[0]
      if (first !== undefined) views[`${userId}/explore`] = yield* get(`${baseUrl}/v1/explore?user_id=${userId}&start_id=${first.id}&depth=2`)
      for (const text of ["automobile", "where do I live", "beagle"]) {
        views[`${userId}/search/${text}`] = (yield* sendJson(`${baseUrl}/v1/search`, { user_id: userId, query: text })).body
      }
    }
    views.keys = yield* get(`${baseUrl}/v1/admin/keys?include_revoked=true`)
    return views
  })

/** Every vector of a user's store, by index and seq, as float32 bytes. */
const sqliteVectors = (dataRoot: string, userId: string) =>
  ["fact", "turn"].flatMap((index) =>
    queryStore<{ seq: number; embedding: Buffer }>(dataRoot, userId, `SELECT seq, embedding FROM ${index}_vector_data ORDER BY seq`)
      .map((row) => `${index}/${row.seq}/${row.embedding.toString("hex")}`))

/** The same from PostgreSQL's binary form (big-endian floats after a 4-byte header), turned little-endian. */
const postgresVectors = (url: string, userId: string) =>
  Effect.gen(function*() {
    const out: Array<string> = []
    for (const [index, table] of [["fact", "facts"], ["turn", "turns"]] as const) {
      const rows = yield* query<{ seq: number; bytes: Buffer }>(url,
        `SELECT seq::int AS seq, vector_send(embedding) AS bytes FROM ${table} WHERE user_id = $1 AND embedding IS NOT NULL ORDER BY seq`, [userId])
      for (const row of rows) {
        const floats = Buffer.from(row.bytes.subarray(4))
        floats.swap32()
        out.push(`${index}/${row.seq}/${floats.toString("hex")}`)
      }
    }
    return out
  })

const counts = (url: string) =>
  query<{ t: string; n: string }>(url, `SELECT 'facts' AS t, count(*) AS n FROM facts UNION ALL SELECT 'events', count(*) FROM events
    UNION ALL SELECT 'turns', count(*) FROM turns UNION ALL SELECT 'jobs', count(*) FROM jobs UNION ALL SELECT 'api_keys', count(*) FROM api_keys
    UNION ALL SELECT 'request_log', count(*) FROM request_log UNION ALL SELECT 'entities', count(*) FROM entities`)

describe("memory-service migrate", () => {
  it.scopedLive("copies a data root into PostgreSQL and back: the same memories, versions, events, graph, search, vectors and named key", () =>
    Effect.gen(function*() {
      const stub = yield* Effect.acquireRelease(
        Effect.promise(() => startProviderStub({ provider: "openai", dimensions: 48 })),
        (running) => Effect.promise(() => running.close())
      )
      const dataRoot = tempDataRoot()
      // The LLM and the embeddings of every server here: the stub's.
      const llm = { ...llmEnv(stub), SERVICE_EMBED_MODEL: "stub-embed" }
      const { jobId, key, views, versions } = yield* buildDeployment(llm, dataRoot)
      const url = yield* databaseWithPassword

      // Locked while a service holds the data root.
      const holder = yield* Scope.make()
      yield* startServer({ SERVICE_DATA_ROOT: dataRoot }).pipe(Scope.extend(holder))
      const locked = yield* cli(["migrate", "--to", url, "--data-root", dataRoot])
      expect(locked.code).toBe(1)
      expect(locked.stderr).toMatch(/^data_root_locked: /)
      yield* Scope.close(holder, Exit.void)

      const first = yield* migrated(["--to", url, "--data-root", dataRoot])
      expect(first.users).toEqual({ total: 2, copied: 2, recopied: 0, skipped: 0 })
      expect(first.target).toContain(":***@")
      expect(first.control.api_keys).toEqual({ copied: 1, skipped: 0 })
      expect(first.rows.fact_vectors).toBeGreaterThan(0)

      // Vectors bit for bit; the lexical counters as the writes themselves keep them.
      for (const userId of USERS) expect(yield* postgresVectors(url, userId)).toEqual(sqliteVectors(dataRoot, userId))
      const counters = yield* query<{ ok: boolean }>(url, `SELECT bool_and(facts_indexed = (SELECT count(*) FROM facts f WHERE f.user_id = u.user_id)
        AND facts_lexemes = (SELECT coalesce(sum(length(search)), 0) FROM facts f WHERE f.user_id = u.user_id)
        AND turns_indexed = (SELECT count(*) FROM turns t WHERE t.user_id = u.user_id)
        AND turns_lexemes = (SELECT coalesce(sum(length(search)), 0) FROM turns t WHERE t.user_id = u.user_id) AND (u.user_id <> 'alice' OR facts_indexed > 0)) AS ok FROM users u`)
      expect(counters).toEqual([{ ok: true }])

      // A rerun copies nothing twice.
      const before = yield* counts(url)
      const again = yield* migrated(["--to", url, "--data-root", dataRoot])
      expect(again.users).toEqual({ total: 2, copied: 0, recopied: 0, skipped: 2 })
      expect(again.control.jobs).toMatchObject({ copied: 0 })
      expect(yield* counts(url)).toEqual(before)

      // Back into a new data root: every user's store holds the same rows and vectors, and a server on it answers the same, searches included.
      const back = NodePath.join(tempDataRoot(), "root")
      const returned = yield* migrated(["--from", url, "--data-root", back])
      expect(returned.users).toMatchObject({ copied: 2 })
      for (const userId of USERS) expect(sqliteVectors(back, userId)).toEqual(sqliteVectors(dataRoot, userId))
      const restored = yield* Scope.make()
      const onRoot = yield* startServer({ ...llm, SERVICE_DATA_ROOT: back }).pipe(Scope.extend(restored))
      const answeredBack = yield* viewsOf(onRoot.baseUrl, versions)
      for (const [view, body] of Object.entries(views)) expect({ view, body: answeredBack[view] }).toEqual({ view, body })
      expect((yield* rawFetch(`${onRoot.baseUrl}/v1/memories?user_id=bob`, { headers: authHeaders(key) })).status).toBe(200)
      yield* Scope.close(restored, Exit.void)

      // A server on the database answers as the data root's did, with the named key and the job.
      const onDatabase = yield* Scope.make()
      const served = yield* startServer({ ...llm, SERVICE_DATABASE_URL: url }).pipe(Scope.extend(onDatabase))
      const answered = yield* viewsOf(served.baseUrl, versions)
      for (const [view, body] of Object.entries(views)) if (!view.includes("/search/")) expect({ view, body: answered[view] }).toEqual({ view, body })
      const named = yield* rawFetch(`${served.baseUrl}/v1/memories?user_id=alice`, { headers: authHeaders(key) })
      expect(named.status).toBe(200)
      expect(yield* get(`${served.baseUrl}/v1/jobs/${jobId}`)).toMatchObject({ status: "succeeded" })
      const search = (query: string) =>
        Effect.map(sendJson(`${served.baseUrl}/v1/search`, { user_id: "alice", query }), (r) => r.body as { hits: Array<{ content: string; metadata: { routes: Array<{ route: string }> } }> })
      expect((yield* search("beagle")).hits[0]?.content).toContain("beagle")
      const byMeaning = yield* search("automobile")
      expect(byMeaning.hits.find((hit) => hit.content.includes("car"))?.metadata.routes.map((r) => r.route)).toContain("vector_turns")
      // New writes take seqs after the copied ones: they list last, their events first.
      yield* sendJson(`${served.baseUrl}/v1/memories`, { user_id: "alice", session_id: "after-move", async_mode: false, messages: [{ content: "I adopted a cat named Tom." }] })
      const listed = (yield* get(`${served.baseUrl}/v1/memories?user_id=alice&limit=100`)) as { memories: Array<{ id: string; content: string }> }
      const newest = listed.memories[listed.memories.length - 1]
      expect(newest?.content).toContain("cat named Tom")
      const events = (yield* get(`${served.baseUrl}/v1/events?user_id=alice&type=memory_add&limit=1`)) as { events: Array<{ session_id: string }> }
      expect(events.events[0]?.session_id).toBe("after-move")
      yield* Scope.close(onDatabase, Exit.void)
    }), 180_000)

  it.scopedLive("resumes a user cut off mid-copy, refuses other data, and fails on a count that differs after the copy", () =>
    Effect.gen(function*() {
      const dataRoot = tempDataRoot()
      const scope = yield* Scope.make()
      const { baseUrl } = yield* startServer({ SERVICE_DATA_ROOT: dataRoot }).pipe(Scope.extend(scope))
      for (const userId of USERS) {
        yield* sendJson(`${baseUrl}/v1/memories`, {
          user_id: userId, infer: false, async_mode: false, messages: ["one", "two", "three"].map((n) => ({ content: `${userId} said ${n}` }))
        })
      }
      yield* Scope.close(scope, Exit.void)
      const url = yield* databaseWithPassword
      yield* migrated(["--to", url, "--data-root", dataRoot])

      // Cut off: alice holds only part of her rows (as a copy interrupted outside a transaction would leave her).
      yield* query(url, `DELETE FROM events WHERE user_id = 'alice' AND seq > (SELECT min(seq) FROM events WHERE user_id = 'alice')`)
      yield* query(url, `DELETE FROM turns WHERE user_id = 'alice' AND position > 1`)
      const resumed = yield* migrated(["--to", url, "--data-root", dataRoot])
      expect(resumed.users).toEqual({ total: 2, copied: 0, recopied: 1, skipped: 1 })
      expect(yield* query(url, `SELECT count(*)::int AS n FROM turns WHERE user_id = 'alice'`)).toEqual([{ n: 3 }])
      expect(yield* query(url, `SELECT turns_indexed::int AS n FROM users WHERE user_id = 'alice'`)).toEqual([{ n: 3 }])

      // A copy that fails part way leaves the user as it was: one transaction per user.
      yield* Effect.scoped(Effect.gen(function*() {
        const database = yield* postgresTransferEnd(Redacted.make(url))
        const alice = (yield* database.readUser("alice"))!
        const broken = { ...alice, tables: { ...alice.tables, events: [...alice.tables.events, ...alice.tables.events] } }
        const failed = yield* Effect.flip(database.replaceUser(broken))
        expect(failed._tag).toBe("MigrationStoreFailed")
        expect(failed.message).not.toContain(PASSWORD)
        expect(userState(alice, yield* database.readUser("alice"))).toEqual({ _tag: "complete" })
      }))

      // Different data for a user is refused, naming the user and the table, and left as it is.
      yield* query(url, `UPDATE turns SET content = 'bob changed this' WHERE user_id = 'bob' AND position = 2`)
      const refused = yield* cli(["migrate", "--to", url, "--data-root", dataRoot])
      expect(refused.code).toBe(1)
      expect(refused.stderr).toMatch(/^migrate_conflict: .*user 'bob' \(table turns\)/m)
      expect(refused.stderr + refused.stdout).not.toContain(PASSWORD)
      expect(yield* query(url, `SELECT count(*)::int AS n FROM turns WHERE content = 'bob changed this'`)).toEqual([{ n: 1 }])

      // Counts compared table by table after the copy: a row missing on one end fails, naming user and table.
      yield* query(url, `UPDATE turns SET content = 'bob said two' WHERE user_id = 'bob' AND position = 2`)
      yield* query(url, `DELETE FROM events WHERE user_id = 'bob' AND seq = (SELECT max(seq) FROM events WHERE user_id = 'bob')`)
      const mismatch = yield* Effect.scoped(Effect.gen(function*() {
        const source = yield* sqliteTransferEnd(dataRoot)
        const target = yield* postgresTransferEnd(Redacted.make(url))
        return yield* Effect.flip(verifyCounts(source, target, USERS))
      }))
      expect(mismatch).toMatchObject({ _tag: "MigrationCountMismatch", user_id: "bob", table: "events", source: 1, target: 0 })
    }), 120_000)

  it.effect("refuses bad flags before touching anything", () =>
    Effect.gen(function*() {
      const url = `postgres://app:${PASSWORD}@127.0.0.1:1/none`
      const both = yield* cli(["migrate", "--to", url, "--from", url, "--data-root", tempDataRoot()])
      expect(both).toMatchObject({ code: 1, stderr: "invalid_input: give exactly one of --to and --from\n" })
      const rootless = yield* cli(["migrate", "--from", url])
      expect(rootless.stderr).toMatch(/^invalid_input: --from needs --data-root/)
      const notPostgres = yield* cli(["migrate", "--to", `mysql://app:${PASSWORD}@db/x`, "--data-root", tempDataRoot()])
      expect(notPostgres.stderr).toMatch(/^invalid_input: expected a PostgreSQL URL/)
      const unreachable = yield* cli(["migrate", "--to", url, "--data-root", tempDataRoot()])
      expect(unreachable.stderr).toMatch(/^store_unavailable: /)
      for (const run of [both, rootless, notPostgres, unreachable]) expect(run.stderr + run.stdout).not.toContain(PASSWORD)
    }), 60_000)

  it("draws progress as users done of all, with the one in hand", () => {
    expect(progressLine(0, 4, "alice")).toBe("[------------------------] 0/4 users  alice")
    expect(progressLine(3, 4, "carol")).toBe("[##################------] 3/4 users  carol")
    expect(progressLine(4, 4, null)).toBe("[########################] 4/4 users")
    expect(progressLine(0, 0, null)).toBe("[########################] 0/0 users")
  })

  it.effect("a run on a pipe prints no progress, only its summary line", () =>
    Effect.gen(function*() {
      const url = yield* freshDatabase
      const dataRoot = tempDataRoot()
      NodeFs.mkdirSync(NodePath.join(dataRoot, "nobody"))
      const run = yield* cli(["migrate", "--to", url], { SERVICE_DATA_ROOT: dataRoot })
      expect(run.code).toBe(0)
      expect(run.stderr).toBe("migrated 0 users (0 copied, 0 copied again, 0 skipped); row counts verified\n")
      expect(run.stdout).toContain(`from   ${dataRoot}`)
    }), 60_000)
})
