import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { API_KEY, apiClient, type RunningServer, startServer, tempDataRoot } from "./support/server.js"
import { runCli } from "./support/cli.js"
import { llmEnv, providerStub } from "./support/llm.js"
import { seedFacts, userRows } from "./support/userRows.js"

/** The CLI against a running server, with the bootstrap key unless another is given. */
const cli = (server: RunningServer, args: ReadonlyArray<string>, options: { readonly key?: string; readonly stdin?: string } = {}) =>
  runCli(args, { env: { SERVICE_API_URL: server.baseUrl, SERVICE_API_KEY: options.key ?? API_KEY }, ...(options.stdin === undefined ? {} : { stdin: options.stdin }) })

/** Runs a command that must succeed, answering its stdout. */
const ok = (server: RunningServer, args: ReadonlyArray<string>, options: { readonly stdin?: string } = {}) =>
  Effect.map(cli(server, args, options), (run) => {
    // Compared with its stderr, so a failure shows why.
    expect({ args, code: run.code, stderr: run.code === 0 ? "" : run.stderr }).toEqual({ args, code: 0, stderr: "" })
    return run.stdout
  })

const jsonOf = <A>(stdout: string): A => JSON.parse(stdout) as A

describe("memory-service CLI", () => {
  it.scoped("health, add and wait, reads, corrections, deletes and errors", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const [health, added, fromStdin, unknown, wrongKey, tooMany] = yield* Effect.all([
        ok(server, ["health"]),
        ok(server, ["add", "--user", "alice", "--message", "I moved to Lisbon in March.", "--session-id", "trip", "--no-infer"]),
        ok(server, ["add", "--user", "alice", "--file", "-", "--no-infer", "--no-wait", "--json"], {
          stdin: JSON.stringify([{ role: "assistant", content: "Noted: green tea every morning." }])
        }),
        cli(server, ["get", "--user", "alice", "fact_missing"]),
        cli(server, ["list", "--user", "alice"], { key: "wrong-key" }),
        cli(server, ["search", "--user", "alice", "Lisbon", "--top-k", "500"])
      ], { concurrency: "unbounded" })
      expect(health).toMatch(/^ok\s+version \S+\s+schema \d+\s+auth enabled/)
      expect(added).toContain("turns_written: 1")
      expect(added).toContain("session_id: trip")
      expect(unknown.code).not.toBe(0)
      expect(unknown.stderr).toMatch(/^not_found: /)
      expect(wrongKey.code).not.toBe(0)
      expect(wrongKey.stderr).toMatch(/^unauthorized: /)
      expect(`${unknown.stderr}${wrongKey.stderr}`).not.toContain(API_KEY)
      // Refused before sending, in the server's words, not in the field's description.
      expect(tooMany.code).not.toBe(0)
      expect(tooMany.stderr.trim()).toBe("validation_error: top_k: Input should be less than or equal to 100")

      // Without an LLM nothing extracts facts: seed them in the store the adds created.
      yield* seedFacts(server, "alice", [
        { fact_id: "fact_home", content: "Alice lives in Porto.", kind: "state" },
        { fact_id: "fact_pet", content: "Alice has a cat.", kind: "fact" }
      ])
      const jobId = jsonOf<{ job_id: string }>(fromStdin).job_id
      const [table, listed, search, context, got, job] = yield* Effect.all([
        ok(server, ["list", "--user", "alice"]),
        ok(server, ["list", "--user", "alice", "--json", "--limit", "1"]),
        ok(server, ["search", "--user", "alice", "Lisbon", "--top-k", "3"]),
        cli(server, ["context", "--user", "alice", "Lisbon"]),
        ok(server, ["get", "--user", "alice", "fact_home", "--json"]),
        ok(server, ["job", jobId, "--json"])
      ], { concurrency: "unbounded" })
      expect(table.split("\n")[0]).toMatch(/^ID\s+KIND\s+STATUS\s+OCCURRED\s+CONTENT$/)
      expect(table).toMatch(/fact_home\s+state\s+active/)
      expect(listed.trim().split("\n")).toHaveLength(1)
      expect(jsonOf<{ total: number; memories: Array<unknown> }>(listed)).toMatchObject({ total: 2, limit: 1 })
      expect(search).toMatch(/ev_raw:trip_turn_1\s+trip\s+I moved to Lisbon in March\./)
      expect(context.code).toBe(0)
      expect(context.stdout).toContain("I moved to Lisbon in March.")
      expect(context.stderr).toMatch(/^citations: /m)
      expect(jsonOf(got)).toMatchObject({ id: "fact_home", content: "Alice lives in Porto.", status: "active" })
      expect(jsonOf(job)).toMatchObject({ job_id: jobId, kind: "ingest" })

      const superseded = yield* ok(server, ["supersede", "--user", "alice", "fact_home", "Alice lives in Lisbon."])
      expect(superseded).toMatch(/^fact_home superseded by fact_\S+: Alice lives in Lisbon\.$/m)
      // fact_pet as if taken from the Lisbon turn: deleting it takes the turn's words out of what the reads show.
      yield* userRows(server).insert("alice", "fact_sources", [{ fact_id: "fact_pet", span_id: "span_trip_1" }])
      const [deleted, again, events] = yield* Effect.all([
        ok(server, ["delete", "--user", "alice", "fact_pet"]),
        ok(server, ["delete", "--user", "alice", "fact_nothing"]),
        ok(server, ["events", "--user", "alice", "--type", "memory_supersede", "--json"])
      ])
      expect(deleted.trim()).toBe("fact_pet archived")
      expect(again.trim()).toBe("fact_nothing: no such memory")
      expect(jsonOf<{ events: Array<{ memory_id: string }> }>(events).events.map((e) => e.memory_id)).toHaveLength(1)
      expect(yield* ok(server, ["search", "--user", "alice", "Lisbon", "--top-k", "3"])).not.toContain("I moved to Lisbon")
    }), 180_000)

  it.scoped("keys, stats and usage", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const created = yield* cli(server, ["keys", "create", "ci"])
      expect(created.code).toBe(0)
      // The new key alone on stdout, so `KEY=$(memory-service keys create ci)` works.
      expect(created.stdout.trim()).toMatch(/^\S+$/)
      expect(created.stderr).toMatch(/^key \S+ \(ci\) created/)
      const keyId = /^key (\S+)/.exec(created.stderr)?.[1] ?? ""
      const [usedNewKey, stats, usage] = yield* Effect.all([
        cli(server, ["stats", "--json"], { key: created.stdout.trim() }),
        ok(server, ["stats"]),
        ok(server, ["usage", "--json"])
      ], { concurrency: "unbounded" })
      expect(usedNewKey.code).toBe(0)
      expect(jsonOf(usedNewKey.stdout)).toHaveProperty("users")
      expect(stats).toMatch(/^users: \d+$/m)
      expect(jsonOf(usage)).toHaveProperty("by_operation")
      // The request log names a named key as its actor, key:<name>.
      const requests = (yield* ok(server, ["requests", "--limit", "10"])).split("\n")
      expect(requests[0]).toMatch(/\bCALLER\b/)
      expect(requests.find((line) => line.includes("/v1/admin/stats") && line.includes("key:ci"))).toBeDefined()
      expect(requests.find((line) => line.includes("/v1/admin/keys") && /\sbootstrap\s/.test(line))).toBeDefined()
      const revoked = yield* ok(server, ["keys", "revoke", keyId])
      expect(revoked).toContain(`key ${keyId} (ci) revoked at`)
      const list = yield* ok(server, ["keys", "list"])
      expect(list.split("\n")[0]).toMatch(/^ID\s+NAME\s+PREFIX\s+CREATED\s+LAST USED\s+REVOKED$/)
      expect(list).toMatch(new RegExp(`${keyId}\\s+ci\\s+`))
      expect(list).not.toMatch(/\bno$/m)
    }), 180_000)

  it.scoped("import sends batches and a rerun skips what the state file says is done", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const file = NodePath.join(tempDataRoot(), "sessions.jsonl")
      const session = (i: number) => JSON.stringify({ session_id: `s${i}`, messages: [{ content: `Session ${i} says hello.` }] })
      NodeFs.writeFileSync(file, `${session(1)}\n${session(2)}\n`)
      const first = yield* cli(server, ["import", file, "--user", "bob", "--no-infer", "--batch-size", "1"])
      expect(first.code).toBe(0)
      expect(first.stdout.trim()).toBe("succeeded 2, failed 0")
      expect(first.stderr).toContain("imported 2/2")
      expect(JSON.parse(NodeFs.readFileSync(`${file}.import-state.json`, "utf8"))).toMatchObject({ next_index: 2, succeeded: 2 })

      // One more session, and one that the service refuses (no messages): only those two are sent.
      NodeFs.appendFileSync(file, `${session(3)}\n{"messages":[]}\n`)
      const rerun = yield* cli(server, ["import", file, "--user", "bob", "--no-infer"])
      expect(rerun.code).not.toBe(0)
      expect(rerun.stderr).toContain("resuming at session 2 of 4")
      expect(rerun.stdout).toContain("succeeded 3, failed 1 (resumed: 2 already done)")
      expect(rerun.stdout).toMatch(/session 3: validation_error: /)
      expect(rerun.stderr).toMatch(/^import_incomplete: 1 session\(s\) failed$/m)

      const client = yield* apiClient(server.baseUrl)
      const events = yield* client.events.list({ urlParams: { user_id: "bob", offset: 0, limit: 50 } })
      expect(events.events.map((e) => e.session_id).sort()).toEqual(["s1", "s2", "s3"])
    }), 180_000)

  it.effect("reads a blank SERVICE_API_URL as unset, as the server reads its variables: the default URL", () =>
    Effect.gen(function*() {
      for (const blank of ["", "  "]) {
        const run = yield* runCli(["stats"], { env: { SERVICE_API_URL: blank, SERVICE_API_KEY: API_KEY } })
        // Read as set, the blank base left the route's path alone, which no client can call
        // ("GET /v1/admin/stats: Invalid URL"). Read as unset, the call went to the default URL,
        // whether nothing answers there (a network error naming it) or a running service does.
        expect(run.stderr, blank).not.toContain("Invalid URL")
        expect(run.stderr, blank).not.toContain("GET /v1/admin/stats")
      }
    }), 60_000)
})

describe("memory-service CLI with an LLM", () => {
  it.scoped("answer, dream, the graph reads, the admin views and a whole-user delete", () =>
    Effect.gen(function*() {
      const stub = yield* providerStub("openai")
      const server = yield* startServer({ ...llmEnv(stub), SERVICE_ALLOW_PURGE: "true" })
      yield* ok(server, ["add", "--user", "bob", "--message", "I moved to Berlin last year.", "--session-time", "2023-05-08"])
      const [answer, timeline, refine, config, metrics] = yield* Effect.all([
        ok(server, ["answer", "--user", "bob", "Where did I move?"]),
        ok(server, ["timeline", "--user", "bob", "berlin", "--json"]),
        ok(server, ["refine", "--user", "bob", "moved", "--entity", "berlin", "--from", "2022"]),
        ok(server, ["config"]),
        ok(server, ["metrics"])
      ], { concurrency: "unbounded" })
      expect(answer).toContain("Berlin")
      const items = jsonOf<{ items: Array<{ id: string; predicate_raw: string }> }>(timeline).items
      expect(items.map((item) => item.predicate_raw)).toEqual(["The user moved to Berlin last year."])
      expect(refine).toContain("1 of 1 matching")
      expect(config).toContain("llm_provider: openai")
      expect(config).not.toContain("stub-key")
      expect(metrics).toContain("POST /v1/memories")
      const explored = yield* ok(server, ["explore", "--user", "bob", items[0]!.id, "--depth", "2"])
      expect(explored).toContain("SUBJECT_OF")
      expect(yield* ok(server, ["dream", "--user", "bob"])).toMatch(/remaining_stale\D+0/)
      expect(yield* ok(server, ["requests", "--limit", "5"])).toContain("/v1/maintenance/dream")
      // Scope keys are stamped on what is written and narrow what is read.
      yield* ok(server, ["add", "--user", "carol", "--agent-id", "planner", "--message", "The launch moved to Friday.", "--no-infer"])
      const hitsFor = (agent: string) =>
        Effect.map(ok(server, ["search", "--user", "carol", "launch", "--agent-id", agent, "--json"]), (out) => jsonOf<{ hits: Array<unknown> }>(out).hits.length)
      expect(yield* hitsFor("planner")).toBe(1)
      expect(yield* hitsFor("writer")).toBe(0)
      expect(yield* ok(server, ["delete-user", "--user", "bob"])).toMatch(/^bob: \d+ memories archived/)
      expect(yield* ok(server, ["delete-user", "--user", "bob", "--purge"])).toMatch(/^bob: store erased/)
    }), 90_000)

  it.scoped("embed: the memories without a vector, call after call with a line of progress each until none is left, or as a job", () =>
    Effect.gen(function*() {
      const stub = yield* providerStub("openai")
      const server = yield* startServer(llmEnv(stub))
      yield* ok(server, ["add", "--user", "dan", "--message", "I moved to Oslo.", "--no-infer"])
      // Seeded rows come without vectors, as if written before an embedder was configured.
      yield* seedFacts(server, "dan", ["Dan lives in Oslo.", "Dan has a dog.", "Dan skis."].map((content, i) => ({ fact_id: `fact_${i}`, content })))
      const run = yield* cli(server, ["embed", "--user", "dan", "--until-done", "--batch-size", "1", "--max-seconds", "0.001"])
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "embedded 1, 2 left\nembedded 2, 1 left\n" })
      expect(run.stdout).toMatch(/embedded: 3\n/)
      expect(run.stdout).toMatch(/remaining: 0\n/)
      expect(jsonOf<{ status: string }>(yield* ok(server, ["embed", "--async", "--json"])).status).toBe("pending")
    }), 90_000)

  it.scoped("plain text into a pipe: help without colour codes, an empty listing that says so", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      yield* ok(server, ["add", "--user", "erin", "--message", "Nothing to extract here.", "--no-infer"])
      yield* ok(server, ["add", "--user", "finn", "--message", "Finn rows.", "--no-infer"])
      yield* seedFacts(server, "finn", [{ fact_id: "fact_row", content: "Finn rows on Sundays." }])
      const [help, usage, empty, past, events] = yield* Effect.all([
        cli(server, ["--help"]),
        cli(server, ["list"]),
        ok(server, ["list", "--user", "erin"]),
        ok(server, ["list", "--user", "finn", "--offset", "5"]),
        ok(server, ["events", "--user", "nobody"])
      ], { concurrency: 2 })
      expect(help.stdout).toContain("USAGE")
      for (const text of [help.stdout, help.stderr, usage.stdout, usage.stderr]) expect(text).not.toMatch(/\u001b\[/)
      expect(empty.trim()).toBe("no memories")
      expect(past.trim()).toBe("no memories past the first 5 (1 in all)")
      expect(events.trim()).toBe("no events")
    }), 240_000)
})
