import { afterEach, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { inject } from "vitest"
import { createDatabase, withClient } from "../scripts/postgres/cluster.js"
import { type ProviderStub, startProviderStub } from "../scripts/stubs/llm-providers.js"
import { chatRequests, llmEnv } from "./support/llm.js"
import { type ServiceProcess, startProcess } from "./support/processes.js"
import { API_KEY, tempDataRoot } from "./support/server.js"
import { eventually, startReceiver } from "./support/webhookReceiver.js"

/** Two service processes on one PostgreSQL database, as behind a load balancer. */

const running: Array<ServiceProcess> = []
const stubs: Array<ProviderStub> = []

afterEach(async () => {
  for (const service of running.splice(0)) {
    service.child.kill("SIGKILL")
    await service.exited
  }
  for (const stub of stubs.splice(0)) await stub.close()
})

const replicas = async (env: Record<string, string> = {}) => {
  const url = await createDatabase(inject("postgresUrl"))
  const started = await Promise.all([0, 1].map(() => startProcess({ SERVICE_API_KEY: API_KEY, SERVICE_DATA_ROOT: tempDataRoot(), SERVICE_DATABASE_URL: url, ...env })))
  running.push(...started)
  return { url, services: started, bases: started.map((service) => `http://127.0.0.1:${service.port}`) }
}

const slowStub = async (delayMs: number) => {
  const stub = await startProviderStub({ provider: "openai", delayMs })
  stubs.push(stub)
  return stub
}

const call = async (base: string, method: string, path: string, body?: unknown, key = API_KEY) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return { status: response.status, body: await response.json() as Record<string, unknown> }
}

const waitFor = async <A>(what: string, probe: () => Promise<A | undefined>, timeoutMs = 30_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const found = await probe()
    if (found !== undefined) return found
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`${what}: not within ${timeoutMs} ms`)
}

const finishedJob = (base: string, jobId: string) =>
  waitFor(`job ${jobId} finished`, async () => {
    const job = await call(base, "GET", `/v1/jobs/${jobId}`)
    return job.body.status === "succeeded" || job.body.status === "failed" ? job.body : undefined
  }, 60_000)

const query = <A>(url: string, text: string, params: Array<unknown>) => withClient(url, async (client) => (await client.query(text, params)).rows as Array<A>)

/**
 * Two replicas under a slow provider, with a job ingesting these messages taken by one of them:
 * the job, and which replica holds its lease (its owner names the process id).
 */
const runningJob = async (leaseSeconds: string, messages: ReadonlyArray<string>) => {
  const stub = await slowStub(2_000)
  const { bases, services, url } = await replicas({ ...llmEnv(stub), SERVICE_JOB_LEASE_SECONDS: leaseSeconds })
  const accepted = await call(bases[0]!, "POST", "/v1/memories", { user_id: "alice", async_mode: true, messages: messages.map((content) => ({ content })) })
  const jobId = accepted.body.job_id as string
  const owner = await waitFor("the job's worker", async () =>
    (await query<{ lease_owner: string | null }>(url, "SELECT lease_owner FROM jobs WHERE job_id = $1", [jobId]))[0]?.lease_owner ?? undefined)
  const holder = services.findIndex((service) => owner.split(":")[1] === String(service.child.pid))
  return { bases, holder, jobId, services, url }
}

describe("replicas on one PostgreSQL database", () => {
  it("share named keys, jobs and users: minted, accepted or written on one, used on the other", async () => {
    const { bases: [a, b] } = await replicas()
    const minted = await call(a!, "POST", "/v1/admin/keys", { name: "agent" })
    const key = minted.body.api_key as string
    expect((await call(b!, "POST", "/v1/search", { user_id: "alice", query: "x" }, key)).status).toBe(200)

    const accepted = await call(b!, "POST", "/v1/memories", { user_id: "alice", infer: false, async_mode: true, messages: [{ content: "I keep bees" }] }, key)
    expect(accepted.status).toBe(202)
    expect(await finishedJob(a!, accepted.body.job_id as string)).toMatchObject({ status: "succeeded" })
    const hits = (await call(a!, "POST", "/v1/search", { user_id: "alice", query: "bees" })).body.hits as Array<{ content: string }>
    expect(hits.map((hit) => hit.content)).toEqual(["I keep bees"])
    const stats = (await call(b!, "GET", "/v1/admin/stats")).body
    expect(stats).toMatchObject({ users: 1, open_stores: 0, jobs_by_status: { succeeded: 1 } })
    expect(stats.largest_stores).toEqual([{ user_id: "alice", bytes: stats.stores_bytes }])
    expect(stats.stores_bytes).toBeGreaterThan("I keep bees".length)

    expect((await call(b!, "DELETE", `/v1/admin/keys/${(minted.body.key as { id: string }).id}`)).status).toBe(200)
    expect((await call(a!, "POST", "/v1/search", { user_id: "alice", query: "x" }, key)).status).toBe(401)
  }, 90_000)

  it("a request served by one replica is listed by the other within the request log's interval, though nothing reads the log on the first", async () => {
    const { bases } = await replicas()
    const served = await fetch(`${bases[0]}/v1/jobs/nope`, { headers: { authorization: `Bearer ${API_KEY}`, "x-request-id": "seen-elsewhere" } })
    expect(served.status).toBe(404)
    const row = await waitFor("the row on the other replica", async () => {
      const log = await call(bases[1]!, "GET", "/v1/admin/requests")
      return (log.body.requests as Array<{ request_id: string; route: string; status_code: number }>).find((entry) => entry.request_id === "seen-elsewhere")
    })
    expect(row).toMatchObject({ route: "/v1/jobs/{job_id}", status_code: 404 })
  })

  it("writes for one user through both replicas serialize: concurrent corrections of one memory, one wins and the rest are 409", async () => {
    const { bases } = await replicas(llmEnv(await slowStub(0)))
    expect((await call(bases[0]!, "POST", "/v1/memories", { user_id: "alice", async_mode: false, messages: [{ content: "I live in Lyon." }] })).status).toBe(200)
    const memories = (await call(bases[1]!, "GET", "/v1/memories?user_id=alice")).body.memories as Array<{ id: string; content: string }>
    expect(memories.map((memory) => memory.content)).toEqual([expect.stringContaining("Lyon")])
    const memoryId = memories[0]!.id
    const ingests = Array.from({ length: 12 }, (_, i) =>
      call(bases[i % 2]!, "POST", "/v1/memories", { user_id: "alice", session_id: `s${i}`, infer: false, async_mode: false, messages: [{ content: `note ${i}` }] }))
    const corrections = Array.from({ length: 8 }, (_, i) =>
      call(bases[i % 2]!, "PATCH", `/v1/memories/${memoryId}`, { user_id: "alice", content: `I live in Paris district ${i}.` }))
    const [written, corrected] = await Promise.all([Promise.all(ingests), Promise.all(corrections)])
    expect(written.map((response) => response.status)).toEqual(Array(12).fill(200))
    expect(corrected.map((response) => response.status).sort()).toEqual([200, ...Array(7).fill(409)])

    const listed = (await call(bases[1]!, "GET", "/v1/memories?user_id=alice&limit=100")).body.memories as Array<{ content: string }>
    expect(listed.filter((memory) => /Lyon|Paris/.test(memory.content))).toHaveLength(1)
    const history = await call(bases[0]!, "GET", `/v1/memories/${memoryId}?user_id=alice`)
    expect(history.body).toMatchObject({ status: "superseded" })
  }, 90_000)

  it("a dream going on one replica is already_running on the other", async () => {
    const stub = await slowStub(300)
    const { bases: [a, b] } = await replicas(llmEnv(stub))
    const ingested = await call(a!, "POST", "/v1/memories", {
      user_id: "alice",
      async_mode: false,
      messages: [{ content: "I moved to Berlin last year." }, { content: "I work at Acme Corp." }]
    })
    expect(ingested.status).toBe(200)
    const first = call(a!, "POST", "/v1/maintenance/dream", { user_id: "alice" })
    await waitFor("the first run's profile request", async () =>
      chatRequests(stub).some((request) => JSON.stringify(request.body).includes("entity_profile")) ? true : undefined)
    const second = await call(b!, "POST", "/v1/maintenance/dream", { user_id: "alice" })
    expect(second).toMatchObject({ status: 200, body: { status: "already_running", entities_processed: 0 } })
    expect((await first).body).toMatchObject({ status: "ok" })
    expect((await call(b!, "POST", "/v1/maintenance/dream", { user_id: "alice" })).body).toMatchObject({ status: "ok" })
  }, 90_000)

  it("a replica killed while running a job: the other resumes it once its lease lapses, and it applies once", async () => {
    const { bases, holder, jobId, services, url } = await runningJob("2", ["I moved to Berlin last year.", "I work at Acme Corp."])
    expect(holder).toBeGreaterThanOrEqual(0)
    services[holder]!.child.kill("SIGKILL")
    await services[holder]!.exited
    const survivor = bases[1 - holder]!

    const job = await finishedJob(survivor, jobId)
    expect(job).toMatchObject({ status: "succeeded" })
    const [row] = await query<{ attempts: number; lease_owner: string | null }>(url, "SELECT attempts, lease_owner FROM jobs WHERE job_id = $1", [jobId])
    expect(row).toEqual({ attempts: 2, lease_owner: null })
    const listed = (await call(survivor, "GET", "/v1/memories?user_id=alice&limit=100")).body.memories as Array<{ content: string }>
    const contents = listed.map((memory) => memory.content)
    expect(contents.length).toBe((job.result as { facts_extracted: number }).facts_extracted)
    expect(new Set(contents).size).toBe(contents.length)
  }, 90_000)

  it("a replica stopped gracefully while running a job gives it up: the other takes it at once, not after the lease", async () => {
    const { bases, holder, jobId, services, url } = await runningJob("600", ["I moved to Berlin last year."])
    services[holder]!.child.kill("SIGTERM")
    expect(await services[holder]!.exited).toBe(0)
    // Well within the 600 s lease: only a lease given up lets the other replica take the job.
    expect(await finishedJob(bases[1 - holder]!, jobId)).toMatchObject({ status: "succeeded" })
    const [row] = await query<{ attempts: number }>(url, "SELECT attempts FROM jobs WHERE job_id = $1", [jobId])
    expect(row).toEqual({ attempts: 2 })
  }, 90_000)

  it("webhooks: changes written through both replicas reach the receiver once each, in each user's order, though one replica is killed", async () => {
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const receiver = yield* startReceiver("replica-secret")
      yield* Effect.promise(() => receiver.down())
      const { bases: [a, b], services } = yield* Effect.promise(() =>
        replicas({ SERVICE_WEBHOOK_URL: receiver.url, SERVICE_WEBHOOK_SECRET: "replica-secret", SERVICE_WEBHOOK_RETRY_BASE_MS: "50", SERVICE_WEBHOOK_RETRY_MAX_MS: "300" }))
      for (let i = 0; i < 4; i++) {
        for (const userId of ["ana", "ben"]) {
          const written = yield* Effect.promise(() =>
            call(i % 2 === 0 ? a! : b!, "POST", "/v1/memories", { user_id: userId, session_id: `s${i}`, infer: false, async_mode: false, messages: [{ content: `${userId} note ${i}` }] }))
          expect(written.status).toBe(200)
        }
      }
      services[0]!.child.kill("SIGKILL")
      yield* Effect.promise(() => services[0]!.exited)
      yield* Effect.promise(() => receiver.up())
      for (const userId of ["ana", "ben"]) {
        const listed = yield* Effect.promise(() => call(b!, "GET", `/v1/events?user_id=${userId}&limit=50`))
        const events = (listed.body.events as ReadonlyArray<{ event_id: string }>).map((event) => event.event_id).reverse()
        expect(events).toHaveLength(4)
        yield* eventually(`${userId}'s changes`, () => receiver.deliveries.filter((delivery) => delivery.json.user_id === userId).length >= 4)
        yield* Effect.sleep("300 millis")
        expect(receiver.deliveries.filter((delivery) => delivery.json.user_id === userId).map((delivery) => delivery.json.event_id)).toEqual(events)
      }
      expect(receiver.deliveries.every((delivery) => delivery.signed)).toBe(true)
    })))
  }, 90_000)

  it("webhooks: a replica started without them leaves them on for the database; its writes are delivered, and it says so in its log and stats", async () => {
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const receiver = yield* startReceiver("replica-secret")
      const url = yield* Effect.promise(() => createDatabase(inject("postgresUrl")))
      const start = (env: Record<string, string>) =>
        Effect.promise(async () => {
          const service = await startProcess({ SERVICE_API_KEY: API_KEY, SERVICE_DATA_ROOT: tempDataRoot(), SERVICE_DATABASE_URL: url, ...env })
          running.push(service)
          return { service, base: `http://127.0.0.1:${service.port}` }
        })
      const delivering = yield* start({ SERVICE_WEBHOOK_URL: receiver.url, SERVICE_WEBHOOK_SECRET: "replica-secret" })
      // Started after the replica with webhooks, as when a replica without them is added or restarted.
      const plain = yield* start({})
      const webhookStats = (base: string) => Effect.promise(async () => (await call(base, "GET", "/v1/admin/stats")).body.webhooks)
      expect(yield* webhookStats(plain.base)).toMatchObject({ enabled: false, database_enabled: true, mismatch: true })
      expect(yield* webhookStats(delivering.base)).toMatchObject({ enabled: true, database_enabled: true, mismatch: false })
      const warning = `${plain.service.stdout()}\n${plain.service.stderr()}`.split("\n").find((line) => line.includes("database_webhooks"))
      expect(warning).toContain("\"database_webhooks\":\"on\"")
      expect(warning).toContain("\"process_webhooks\":\"off\"")

      const writes = 30
      for (let i = 0; i < writes; i++) {
        const written = yield* Effect.promise(() =>
          call(plain.base, "POST", "/v1/memories", { user_id: "dora", session_id: `s${i}`, infer: false, async_mode: false, messages: [{ content: `note ${i}` }] }))
        expect(written.status).toBe(200)
      }
      yield* eventually("every change written through the replica without webhooks", () => receiver.answered() >= writes)
      const listed = yield* Effect.promise(() => call(plain.base, "GET", "/v1/events?user_id=dora&limit=50"))
      const events = (listed.body.events as ReadonlyArray<{ event_id: string }>).map((event) => event.event_id).reverse()
      expect(receiver.deliveries.map((delivery) => delivery.json.event_id)).toEqual(events)

      // Turned off on purpose, once: every replica's writes stop entering the outbox, and the one with webhooks shows the mismatch.
      yield* start({ SERVICE_WEBHOOKS_OFF: "true" })
      expect(yield* webhookStats(delivering.base)).toMatchObject({ enabled: true, database_enabled: false, mismatch: true })
      expect((yield* Effect.promise(() =>
        call(delivering.base, "POST", "/v1/memories", { user_id: "dora", session_id: "after", infer: false, async_mode: false, messages: [{ content: "unannounced" }] }))).status).toBe(200)
      const [pending] = yield* Effect.promise(() => query<{ n: number }>(url, "SELECT count(*)::int AS n FROM webhook_outbox", []))
      expect(pending).toEqual({ n: 0 })
    })))
  }, 120_000)
})
