import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Schedule } from "effect"
import { type ProviderStub, startProviderStub } from "../scripts/stubs/llm-providers.js"
import { chatRequests, llmEnv, providerStub } from "./support/llm.js"
import { startProcess } from "./support/processes.js"
import { API_KEY, authHeaders, type Deployment, freshDeployment, onPostgres, rawFetch, sendJson, serviceEnv, startServer, usageReport, waitForJob } from "./support/server.js"
import { seedEntities, seedFacts, userRows } from "./support/userRows.js"
import { withoutIds } from "./support/randomIds.js"

interface DreamView {
  readonly user_id: string
  readonly status: string
  readonly entities_processed: number
  readonly profiles_written: number
  readonly profiles_superseded: number
  readonly cancelled: boolean
  readonly remaining_stale: number
}

const dream = (baseUrl: string, body: Record<string, unknown> = {}) =>
  Effect.map(sendJson(`${baseUrl}/v1/maintenance/dream`, { user_id: "alice", ...body }), (r) => ({ status: r.status, body: r.body as DreamView }))

const ingest = (baseUrl: string, contents: ReadonlyArray<string>) =>
  sendJson(`${baseUrl}/v1/memories`, { user_id: "alice", async_mode: false, messages: contents.map((content) => ({ content })) })

const profileRequests = (stub: ProviderStub) => chatRequests(stub).filter((r) => JSON.stringify(r.body).includes("entity_profile")).length

const staleEntities = (deployment: Deployment) =>
  Effect.map(
    userRows(deployment).select("alice", "entities", { columns: ["name"], where: { profile_stale: 1 }, orderBy: "name" }),
    (rows) => rows.map((row) => row.name)
  )

/** The profile fact of one of Alice's entities, found by name. */
const profileOf = (deployment: Deployment, name: string) =>
  Effect.gen(function*() {
    const rows = userRows(deployment)
    const [entity] = yield* rows.select("alice", "entities", { columns: ["profile"], where: { name } })
    return (yield* rows.select("alice", "facts", { columns: ["fact_id", "content", "kind", "metadata"], where: { fact_id: entity?.profile } }))[0]
  })

describe("POST /v1/maintenance/dream", () => {
  it.scoped("rebuilds stale profiles as cited profile memories, superseding the previous one; converges to 0", () =>
    Effect.gen(function*() {
      const stub = yield* providerStub("openai")
      const server = yield* startServer(llmEnv(stub))
      const { baseUrl } = server
      yield* ingest(baseUrl, ["I moved to Berlin last year.", "I work at Acme Corp."])
      expect(yield* staleEntities(server)).toEqual(["Acme Corp", "Berlin", "user"])
      const first = yield* dream(baseUrl)
      expect(first.status).toBe(200)
      expect(first.body).toEqual({
        user_id: "alice",
        status: "ok",
        entities_processed: 3,
        profiles_written: 3,
        profiles_superseded: 0,
        cancelled: false,
        remaining_stale: 0
      })
      const berlin = yield* profileOf(server, "Berlin")
      expect(berlin).toMatchObject({ kind: "profile", content: "Berlin: The user moved to Berlin last year." })
      const cited = JSON.parse(String(berlin?.metadata)) as { citations: Array<string>; profile_of: string }
      expect(cited.profile_of).toBe("entity_berlin")
      expect(cited.citations).toHaveLength(1)
      expect(profileRequests(stub)).toBe(3)
      // Nothing is stale: a second run does nothing.
      expect((yield* dream(baseUrl)).body).toMatchObject({ entities_processed: 0, remaining_stale: 0 })
      // A new fact about Berlin makes its profile stale again; the next run supersedes the old profile.
      yield* ingest(baseUrl, ["I love the museums in Berlin."])
      const again = yield* dream(baseUrl, { priority_order: "fifo" })
      expect(again.body).toMatchObject({ profiles_superseded: 2, remaining_stale: 0 })
      expect(yield* userRows(server).select("alice", "facts", { columns: ["status"], where: { fact_id: berlin?.fact_id } })).toEqual([{ status: "superseded" }])
      const usage = yield* usageReport(baseUrl)
      expect(Object.keys(usage.by_operation.maintenance!.by_phase)).toEqual(["profile"])
    }))

  it.scoped("in bounded batches: batch_size per call, remaining_stale going down to 0", () =>
    Effect.gen(function*() {
      const server = yield* startServer(llmEnv(yield* providerStub("openai")))
      const { baseUrl } = server
      yield* ingest(baseUrl, ["I moved to Berlin last year.", "I work at Acme Corp."])
      const seen: Array<number> = []
      for (let i = 0; i < 3; i++) seen.push((yield* dream(baseUrl, { batch_size: 1, priority_order: "by_fact_count_delta" })).body.remaining_stale)
      expect(seen).toEqual([2, 1, 0])
      expect(yield* staleEntities(server)).toEqual([])
    }))

  it.scopedLive("a second run for the same user while one is going is a 200 already_running, doing nothing", () =>
    Effect.gen(function*() {
      const stub = yield* providerStub("openai", { delayMs: 150 })
      const { baseUrl } = yield* startServer(llmEnv(stub))
      yield* ingest(baseUrl, ["I moved to Berlin last year.", "I work at Acme Corp."])
      const first = yield* Effect.fork(dream(baseUrl))
      // The first run is going once the stub has its first profile request (each is held 150 ms).
      yield* Effect.sync(() => profileRequests(stub)).pipe(
        Effect.repeat({ until: (n) => n > 0, schedule: Schedule.spaced("5 millis") }),
        Effect.timeout("10 seconds")
      )
      const second = yield* dream(baseUrl)
      expect(second.status).toBe(200)
      expect(second.body).toMatchObject({ status: "already_running", entities_processed: 0, profiles_written: 0 })
      expect(second.body.remaining_stale).toBeGreaterThan(0)
      expect((yield* Fiber.join(first)).body).toMatchObject({ status: "ok", entities_processed: 3, remaining_stale: 0 })
    }))

  it.scopedLive("the soft deadline stops between entities, after at least one, with cancelled: true; the next run resumes where it stopped", () =>
    Effect.gen(function*() {
      const stub = yield* providerStub("openai", { delayMs: 150 })
      const server = yield* startServer(llmEnv(stub))
      const { baseUrl } = server
      yield* ingest(baseUrl, ["I moved to Berlin last year.", "I work at Acme Corp."])
      const cut = (yield* dream(baseUrl, { max_processing_time_sec: 0.001 })).body
      expect(cut).toMatchObject({ cancelled: true, entities_processed: 1, remaining_stale: 2 })
      expect(yield* staleEntities(server)).toHaveLength(2)
      const rest = (yield* dream(baseUrl)).body
      expect(rest).toMatchObject({ cancelled: false, entities_processed: 2, remaining_stale: 0 })
    }))

  it.scopedLive("async (or async_mode): 202 with a dream job whose result is the run's", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer(llmEnv(yield* providerStub("openai")))
      yield* ingest(baseUrl, ["I moved to Berlin last year."])
      for (const flag of ["async", "async_mode"]) {
        const accepted = yield* sendJson(`${baseUrl}/v1/maintenance/dream`, { user_id: "alice", [flag]: true })
        expect(accepted.status).toBe(202)
        expect(Object.keys(accepted.body as object).sort()).toEqual(["job_id", "status"])
        const job = yield* waitForJob(baseUrl, (accepted.body as { job_id: string }).job_id)
        expect(job).toMatchObject({ status: "succeeded", kind: "dream", result: { status: "ok", remaining_stale: 0 } })
      }
    }))

  it.scoped("without an LLM, a digest of the current facts; scope keys are refused (501); bounds are checked", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const { baseUrl } = server
      yield* sendJson(`${baseUrl}/v1/memories`, { user_id: "alice", infer: false, async_mode: false, messages: [{ content: "x" }] })
      yield* seedFacts(server, "alice", [{ fact_id: "fact_1", content: "Alice plays the cello." }])
      yield* seedEntities(server, "alice", [{ entity_id: "entity_cello", name: "cello", normalized_name: "cello", profile_stale: 1 }])
      yield* userRows(server).insert("alice", "fact_entity_roles", [{ fact_id: "fact_1", entity_id: "entity_cello", role: "object" }])
      expect((yield* dream(baseUrl)).body).toMatchObject({ profiles_written: 1, remaining_stale: 0 })
      expect(yield* userRows(server).select("alice", "facts", { columns: ["content"], where: { kind: "profile" } })).toEqual([{ content: "cello: Alice plays the cello." }])
      expect((yield* dream(baseUrl, { agent_id: "planner" })).status).toBe(501)
      for (const body of [{ batch_size: 0 }, { batch_size: 1001 }, { max_processing_time_sec: 3601 }, { priority_order: "random" }, { extra: true }]) {
        expect((yield* dream(baseUrl, body)).status).toBe(422)
      }
      expect((yield* dream(baseUrl, { user_id: "../x" })).status).toBe(400)
    }))
})

describe("dream across a crash (real processes)", () => {
  it("a dream job cut by kill -9 resumes at the next start where it stopped: each entity profiled once", async () => {
    const stub = await startProviderStub({ provider: "openai", delayMs: 250 })
    const deployment = await Effect.runPromise(freshDeployment)
    // The job running when its process is killed waits out its lease on PostgreSQL: a short one.
    const env = serviceEnv(deployment, { ...llmEnv(stub), SERVICE_JOB_LEASE_SECONDS: "2" })
    const profiles = () => Effect.runPromise(userRows(deployment).count("alice", "facts", { kind: "profile" }))
    const stale = () => Effect.runPromise(userRows(deployment).count("alice", "entities", { profile_stale: 1 }))
    const post = (port: number, path: string, body: unknown) =>
      fetch(`http://127.0.0.1:${port}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
        body: JSON.stringify(body)
      }).then((response) => response.json() as Promise<Record<string, unknown>>)
    const first = await startProcess(env)
    try {
      await post(first.port, "/v1/memories", { user_id: "alice", async_mode: false, messages: [{ content: "I moved to Berlin last year. I work at Acme Corp." }] })
      const accepted = await post(first.port, "/v1/maintenance/dream", { user_id: "alice", async: true, priority_order: "fifo" })
      // Long enough for one profile to commit, too short for all three.
      for (let i = 0; i < 100 && await profiles() === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      first.child.kill("SIGKILL")
      await first.exited
      expect(await stale()).not.toBe(0)
      const second = await startProcess(env)
      try {
        for (let i = 0; i < 250; i++) {
          const job = await fetch(`http://127.0.0.1:${second.port}/v1/jobs/${String(accepted.job_id)}`, { headers: { authorization: `Bearer ${API_KEY}` } })
            .then((response) => response.json() as Promise<{ status: string }>)
          if (job.status === "succeeded") break
          await new Promise((resolve) => setTimeout(resolve, 40))
        }
        expect(await stale()).toBe(0)
        // One current profile per entity, none written twice.
        expect(await profiles()).toBe(3)
      } finally {
        second.child.kill("SIGKILL")
        await second.exited
      }
    } finally {
      await stub.close()
    }
  }, 60_000)
})

const LEFT_BEHIND = ["facts", "entities", "events", "turns"] as const

describe("dream and the other writes of a user", () => {
  const scoped = (baseUrl: string, path: string) => Effect.map(rawFetch(`${baseUrl}${path}`, { headers: authHeaders() }), (response) => response.text)

  it.scoped("a profile tells no agent what another agent's memories keep from it", () =>
    Effect.gen(function*() {
      const server = yield* startServer(llmEnv(yield* providerStub("openai")))
      const { baseUrl } = server
      const post = (agent: string, content: string) =>
        sendJson(`${baseUrl}/v1/memories`, { user_id: "alice", agent_id: agent, async_mode: false, messages: [{ content }] })
      yield* post("a1", "I moved to Berlin last year.")
      yield* post("a2", "My locker in Berlin opens with the code 4417.")
      expect((yield* dream(baseUrl)).body).toMatchObject({ status: "ok", remaining_stale: 0 })
      const reads = [
        "/v1/memories?user_id=alice&agent_id=a1&limit=100",
        "/v1/context?user_id=alice&agent_id=a1&query=Berlin",
        "/v1/entity_timeline?user_id=alice&agent_id=a1&entity=Berlin"
      ]
      for (const path of reads) expect(withoutIds(yield* scoped(baseUrl, path))).not.toContain("4417")
      const search = yield* sendJson(`${baseUrl}/v1/search`, { user_id: "alice", agent_id: "a1", query: "Berlin code locker" })
      expect(withoutIds(JSON.stringify(search.body))).not.toContain("4417")
      // a2 and an unscoped reader see the profiles that may tell it.
      expect(yield* scoped(baseUrl, "/v1/memories?user_id=alice&agent_id=a2&limit=100")).toContain("4417")
      const profiles = yield* userRows(server).select("alice", "facts", { columns: ["content", "agent_id"], where: { kind: "profile" } })
      for (const profile of profiles) if (String(profile.content).includes("4417")) expect(profile.agent_id).toBe("a2")
    }))

  it.scopedLive("a user erased while a dream runs stays erased: no profile, entity, event or user row comes back", () =>
    Effect.gen(function*() {
      const stub = yield* providerStub("openai", { delayMs: 5 })
      const server = yield* startServer({ ...llmEnv(stub), SERVICE_ALLOW_PURGE: "true" })
      const { baseUrl } = server
      const sessions = Array.from({ length: 20 }, (_, i) => ({ session_id: `s${i}`, messages: [{ content: `I visited Town${i} with Friend${i} last year.` }] }))
      for (let round = 0; round < 10; round++) {
        yield* sendJson(`${baseUrl}/v1/memories/batch`, { user_id: "alice", async_mode: false, sessions })
        const dreaming = yield* Effect.fork(dream(baseUrl, { batch_size: 1000 }))
        // Once the first profile is asked for, the run is under way.
        const asked = profileRequests(stub)
        yield* Effect.sync(() => profileRequests(stub)).pipe(Effect.repeat({ until: (n) => n > asked, schedule: Schedule.spaced("5 millis") }), Effect.timeout("20 seconds"))
        const erased = yield* sendJson(`${baseUrl}/v1/memories?user_id=alice&purge=true`, undefined, "DELETE")
        expect(erased.body).toMatchObject({ purged: true })
        yield* Fiber.join(dreaming)
        expect(yield* userRows(server).users).not.toContain("alice")
        // On PostgreSQL a user's rows are kept apart from the user's own row: none may be left either.
        if (onPostgres) for (const table of LEFT_BEHIND) expect(yield* userRows(server).count("alice", table)).toBe(0)
        expect(yield* scoped(baseUrl, "/v1/memories?user_id=alice&limit=5")).toContain('"total":0')
      }
    }), 240_000)
})
