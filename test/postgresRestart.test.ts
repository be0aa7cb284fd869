import { expect, it } from "@effect/vitest"
import * as NodeHttp from "node:http"
import Pg from "pg"
import { createDatabase, startCluster, withClient } from "../scripts/postgres/cluster.js"
import { startProviderStub } from "../scripts/stubs/llm-providers.js"
import { llmEnv } from "./support/llm.js"
import { jsonLines, startProcess } from "./support/processes.js"
import { tempDataRoot } from "./support/server.js"

const HEADERS = { authorization: "Bearer k", "content-type": "application/json" }

const search = (base: string, headers: Record<string, string> = HEADERS) =>
  fetch(`${base}/v1/search`, { method: "POST", headers, body: JSON.stringify({ user_id: "alice", query: "beagle" }) })

const addBeagle = (base: string) =>
  fetch(`${base}/v1/memories`, {
    method: "POST",
    headers: HEADERS,
    body: JSON.stringify({ user_id: "alice", messages: [{ role: "user", content: "I adopted a beagle" }], infer: false, async_mode: false })
  })

const unavailable = { code: "vector_store_unavailable", details: { cause: "database_unreachable" } }

it("PostgreSQL stopped under a running service: 503 in the envelope on every route that needs it, never a hang; back without restarting the service", async () => {
  const cluster = await startCluster({ fsync: false })
  const service = await startProcess({ SERVICE_API_KEY: "k", SERVICE_DATA_ROOT: tempDataRoot(), SERVICE_DATABASE_URL: await createDatabase(cluster.url) })
  try {
    const base = `http://127.0.0.1:${service.port}`
    expect((await addBeagle(base)).status).toBe(200)
    const minted = await (await fetch(`${base}/v1/admin/keys`, { method: "POST", headers: HEADERS, body: JSON.stringify({ name: "ci" }) })).json() as {
      api_key: string
    }
    const namedKey = { authorization: `Bearer ${minted.api_key}`, "content-type": "application/json" }
    const accepted = await (await fetch(`${base}/v1/memories`, {
      method: "POST",
      headers: HEADERS,
      body: JSON.stringify({ user_id: "alice", messages: [{ role: "user", content: "I walk him daily" }], infer: false, async_mode: true })
    })).json() as { job_id: string }

    await cluster.halt()
    const started = Date.now()
    const refused = [
      await search(base),
      // A named key can be neither accepted nor refused while the control plane is down.
      await search(base, namedKey),
      await fetch(`${base}/v1/jobs/${accepted.job_id}`, { headers: HEADERS }),
      await fetch(`${base}/v1/admin/keys`, { headers: HEADERS }),
      await fetch(`${base}/v1/admin/stats`, { headers: HEADERS }),
      await addBeagle(base)
    ]
    expect(Date.now() - started).toBeLessThan(30_000)
    for (const response of refused) {
      expect(response.status).toBe(503)
      expect(await response.json()).toMatchObject(unavailable)
    }
    expect((await fetch(`${base}/health`)).status).toBe(200)

    await cluster.start()
    let status = 0
    for (let attempt = 0; attempt < 40 && status !== 200; attempt++) {
      status = (await search(base)).status
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 250))
    }
    expect(status).toBe(200)
    const hits = (await (await search(base, namedKey)).json() as { hits: Array<{ content: string }> }).hits
    expect(hits.map((hit) => hit.content)).toContain("I adopted a beagle")
    expect((await fetch(`${base}/v1/jobs/${accepted.job_id}`, { headers: HEADERS })).status).toBe(200)
  } finally {
    service.child.kill("SIGTERM")
    await service.exited
    cluster.stop()
  }
}, 90_000)

/**
 * A service on a database of its own with `poolMax` pooled connections, alice's beagle stored, and
 * a client of the test's own on that database (connected), for the length of `use`.
 */
const withPool = async (poolMax: number, use: (base: string, client: Pg.Client) => Promise<void>, env: Record<string, string> = {}) => {
  const cluster = await startCluster({ fsync: false })
  const url = await createDatabase(cluster.url)
  const service = await startProcess({
    SERVICE_API_KEY: "k",
    SERVICE_DATA_ROOT: tempDataRoot(),
    SERVICE_DATABASE_URL: url,
    SERVICE_DATABASE_POOL_MAX: String(poolMax),
    ...env
  })
  const client = new Pg.Client({ connectionString: url })
  try {
    const base = `http://127.0.0.1:${service.port}`
    expect((await addBeagle(base)).status).toBe(200)
    await client.connect()
    await use(base, client)
  } finally {
    await client.end()
    service.child.kill("SIGTERM")
    await service.exited
    cluster.stop()
  }
}

it("every pooled connection held by slow statements: a request waiting for one gets 503 after a bounded wait, and the next one, once they are free, 200", () =>
  withPool(1, async (base, blocker) => {
    await blocker.query("BEGIN")
    await blocker.query("LOCK TABLE users IN ACCESS EXCLUSIVE MODE")
    // The first request takes the only connection and waits on the lock; the second waits for the pool.
    const slow = search(base)
    await new Promise((resolve) => setTimeout(resolve, 300))
    const started = Date.now()
    const waiting = await search(base)
    expect(Date.now() - started).toBeLessThan(20_000)
    expect(waiting.status).toBe(503)
    expect(await waiting.json()).toMatchObject({ code: "vector_store_unavailable" })
    await blocker.query("ROLLBACK")
    // The first is answered once the lock goes, never with a 500 nor left hanging: 200, or 503 when
    // its other legs (each wants a connection of its own) waited for the pool as long as the second.
    expect([200, 503]).toContain((await slow).status)
    expect((await search(base)).status).toBe(200)
  }), 90_000)

const ingest = (base: string, userId: string, content: string) =>
  fetch(`${base}/v1/memories`, {
    method: "POST",
    headers: HEADERS,
    body: JSON.stringify({ user_id: userId, messages: [{ role: "user", content }], infer: false, async_mode: false })
  })

it("writes queued on one user's lock hold one pooled connection at most: another user's request is answered meanwhile, and every queued write lands", () =>
  // The test's client stands for another replica's long write to alice, taking the lock as the service's writes do.
  withPool(2, async (base, otherWriter) => {
    await otherWriter.query("SELECT pg_advisory_lock(hashtext($1))", ["alice"])
    const queued = ["one", "two", "three"].map((word) => ingest(base, "alice", `Walk number ${word}`))
    await new Promise((resolve) => setTimeout(resolve, 300))
    const bob = await ingest(base, "bob", "I keep bees")
    expect(bob.status).toBe(200)
    expect((await search(base)).status).toBe(200)
    await otherWriter.query("SELECT pg_advisory_unlock(hashtext($1))", ["alice"])
    expect((await Promise.all(queued)).map((response) => response.status)).toEqual([200, 200, 200])
    const found = await (await fetch(`${base}/v1/search`, { method: "POST", headers: HEADERS, body: JSON.stringify({ user_id: "alice", query: "walk number" }) })).json() as {
      hits: ReadonlyArray<{ content: string }>
    }
    expect(found.hits.map((hit) => hit.content).sort()).toEqual(["Walk number one", "Walk number three", "Walk number two"])
  }), 90_000)

const dream = (base: string, userId: string) =>
  fetch(`${base}/v1/maintenance/dream`, { method: "POST", headers: HEADERS, body: JSON.stringify({ user_id: userId }) })

it("a maintenance run's per-user lock takes no pooled connection: with a pool of one, a dream is answered and runs", () =>
  withPool(1, async (base) => {
    const dreamed = await dream(base, "alice")
    expect(dreamed.status).toBe(200)
    expect(await dreamed.json()).toMatchObject({ user_id: "alice", status: "ok" })
  }), 90_000)

/** A webhook receiver that holds every delivery unanswered until released, then answers each 200. */
const holdingReceiver = async () => {
  const held: Array<NodeHttp.ServerResponse> = []
  let released = false
  const server = NodeHttp.createServer((request, response) => {
    request.resume()
    request.on("end", () => released ? response.end() : held.push(response))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  if (address === null || typeof address === "string") throw new Error("the receiver has no TCP address")
  return {
    url: `http://127.0.0.1:${address.port}/hook`,
    held: () => held.length,
    release: () => {
      released = true
      for (const response of held.splice(0)) response.end()
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

it("webhook deliveries waiting on a slow receiver hold no pooled connection: requests are answered meanwhile; a lock beyond the locks' pool gets 503 after a bounded wait", async () => {
  const receiver = await holdingReceiver()
  try {
    await withPool(1, async (base) => {
      // alice's change (the pool's set-up stored it) is being delivered: the receiver holds it.
      for (let attempt = 0; attempt < 200 && receiver.held() === 0; attempt++) await new Promise((resolve) => setTimeout(resolve, 50))
      expect(receiver.held()).toBeGreaterThan(0)
      expect((await search(base)).status).toBe(200)
      expect((await ingest(base, "bob", "I keep bees")).status).toBe(200)
      // The delivery's lock holds the locks' only connection: a dream waits for one, then is refused.
      const started = Date.now()
      const refused = await dream(base, "carol")
      expect(Date.now() - started).toBeLessThan(20_000)
      expect(refused.status).toBe(503)
      expect(await refused.json()).toMatchObject({ code: "vector_store_unavailable" })
      receiver.release()
      let status = 0
      for (let attempt = 0; attempt < 40 && status !== 200; attempt++) {
        status = (await dream(base, "carol")).status
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 250))
      }
      expect(status).toBe(200)
    }, { SERVICE_WEBHOOK_URL: receiver.url, SERVICE_WEBHOOK_SECRET: "webhook-secret", SERVICE_WEBHOOK_TIMEOUT_MS: "60000" })
  } finally {
    await receiver.close()
  }
}, 90_000)

it("an idle pooled connection ended by the server is logged as a warning, and requests go on over new ones", async () => {
  const cluster = await startCluster({ fsync: false })
  const url = await createDatabase(cluster.url)
  const service = await startProcess({ SERVICE_API_KEY: "k", SERVICE_DATA_ROOT: tempDataRoot(), SERVICE_DATABASE_URL: url })
  try {
    const base = `http://127.0.0.1:${service.port}`
    expect((await addBeagle(base)).status).toBe(200)
    const ended = await withClient(url, async (client) =>
      (await client.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'memory-service' AND state = 'idle' AND query NOT ILIKE 'LISTEN%'"
      )).rowCount)
    expect(ended).toBeGreaterThan(0)
    const warned = () => jsonLines(service.stdout()).some((line) => String(line.message).includes("an idle PostgreSQL connection failed"))
    for (let attempt = 0; attempt < 100 && !warned(); attempt++) await new Promise((resolve) => setTimeout(resolve, 50))
    expect(warned()).toBe(true)
    expect((await search(base)).status).toBe(200)
  } finally {
    service.child.kill("SIGTERM")
    await service.exited
    cluster.stop()
  }
}, 90_000)

it("a job whose write meets PostgreSQL down is run again by its worker once the database is back, not failed", async () => {
  const cluster = await startCluster({ fsync: false })
  const url = await createDatabase(cluster.url)
  const stub = await startProviderStub({ provider: "openai", delayMs: 2_500 })
  const service = await startProcess({ SERVICE_API_KEY: "k", SERVICE_DATA_ROOT: tempDataRoot(), SERVICE_DATABASE_URL: url, ...llmEnv(stub) })
  try {
    const base = `http://127.0.0.1:${service.port}`
    const jobStatus = async (jobId: string) => (await (await fetch(`${base}/v1/jobs/${jobId}`, { headers: HEADERS })).json() as { status: string }).status
    const accepted = await (await fetch(`${base}/v1/memories`, {
      method: "POST",
      headers: HEADERS,
      body: JSON.stringify({ user_id: "alice", messages: [{ role: "user", content: "I moved to Berlin last year." }], async_mode: true })
    })).json() as { job_id: string }
    while (await jobStatus(accepted.job_id) !== "running") await new Promise((resolve) => setTimeout(resolve, 50))
    // Down while the provider answers: the job's write finds no database.
    await cluster.halt()
    await new Promise((resolve) => setTimeout(resolve, 4_000))
    await cluster.start()
    const deadline = Date.now() + 20_000
    let status = "running"
    while (Date.now() < deadline && (status === "running" || status === "pending")) {
      status = await jobStatus(accepted.job_id).catch(() => "running")
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    expect(status).toBe("succeeded")
    // The same claim carried it through: no other worker had to resume it after its lease.
    const attempts = await withClient(url, async (client) => (await client.query("SELECT attempts FROM jobs WHERE job_id = $1", [accepted.job_id])).rows)
    expect(attempts).toEqual([{ attempts: 1 }])
  } finally {
    service.child.kill("SIGTERM")
    await service.exited
    await stub.close()
    cluster.stop()
  }
}, 90_000)
