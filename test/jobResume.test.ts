import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { llmEnv, providerStub } from "./support/llm.js"
import { startProcess } from "./support/processes.js"
import { API_KEY, authHeaders, type Deployment, freshDeployment, rawFetch, sendJson, serviceEnv, startServer, waitForJob } from "./support/server.js"
import { controlRows, userRows } from "./support/userRows.js"

const payload = (sessionId: string, contents: Array<string>) =>
  JSON.stringify({
    userId: "alice",
    sessionId,
    sessionTime: "2024-01-01",
    turns: contents.map((content) => ({ role: "user", content })),
    scope: { agent_id: null, run_id: null, project_id: null },
    audit: { actor: "bootstrap", requestId: null }
  })

/** A job as a process that died left it: accepted (pending) or begun (running) by a worker that is gone. */
const insertJob = (deployment: Deployment, jobId: string, status: string, body: string) =>
  Effect.runPromise(controlRows(deployment).insert("jobs", [{
    job_id: jobId,
    kind: "ingest",
    status,
    user_id: "alice",
    payload: body,
    created_at: "2026-01-01T00:00:00.000000+00:00"
  }]))

const turnContents = (deployment: Deployment, userId: string) =>
  Effect.runPromise(userRows(deployment).select(userId, "turns", { columns: ["content"], orderBy: "seq" })).then((rows) => rows.map((row) => String(row.content)))

const getJob = async (port: number, jobId: string) => {
  const response = await fetch(`http://127.0.0.1:${port}/v1/jobs/${jobId}`, { headers: { authorization: `Bearer ${API_KEY}` } })
  return await response.json() as { status: string; error: string | null; result: unknown }
}

const waitTerminal = async (port: number, jobId: string) => {
  for (let i = 0; i < 300; i++) {
    const job = await getJob(port, jobId)
    if (job.status === "succeeded" || job.status === "failed") return job
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(`job ${jobId} never finished`)
}

/** A fresh deployment and the settings of its processes: a job running when its process is killed waits out a short lease on PostgreSQL. */
const deployed = async () => {
  const deployment = await Effect.runPromise(freshDeployment)
  return { deployment, env: serviceEnv(deployment, { SERVICE_JOB_LEASE_SECONDS: "2" }) }
}

/** Starts once so the control plane exists, then stops. */
const initialise = async (env: Record<string, string>) => {
  const first = await startProcess(env)
  first.child.kill("SIGTERM")
  await first.exited
}

// Each case starts the service as a process (from the sources) once or twice: 60 s, not the
// suite's 30, so that a loaded 2-core machine does not fail them on start-up time alone.
describe("jobs across restarts (real processes)", () => {
  it("a job accepted before a crash runs at the next start, and its turns are written once", async () => {
    const { deployment, env } = await deployed()
    await initialise(env)
    await insertJob(deployment, "pending-job", "pending", payload("s-pending", ["a", "b"]))
    await insertJob(deployment, "running-job", "running", payload("s-running", ["c"]))
    const server = await startProcess(env)
    try {
      expect(await waitTerminal(server.port, "pending-job")).toMatchObject({ status: "succeeded", result: { turns_written: 2 } })
      expect(await waitTerminal(server.port, "running-job")).toMatchObject({ status: "succeeded", result: { turns_written: 1 } })
      expect((await turnContents(deployment, "alice")).sort()).toEqual(["a", "b", "c"])
    } finally {
      server.child.kill("SIGKILL")
      await server.exited
    }
  }, 60_000)

  it("a job whose writes were committed before the crash is not applied again", async () => {
    const { deployment, env } = await deployed()
    const server = await startProcess(env)
    const accepted = await fetch(`http://127.0.0.1:${server.port}/v1/memories`, {
      method: "POST",
      headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ user_id: "alice", session_id: "s", infer: false, messages: [{ content: "once" }] })
    }).then((response) => response.json() as Promise<{ job_id: string }>)
    await waitTerminal(server.port, accepted.job_id)
    server.child.kill("SIGKILL")
    await server.exited
    // As if the process died between committing the turns and recording the job's end: the job still running, with its payload.
    await Effect.runPromise(controlRows(deployment).update("jobs", { status: "running", payload: payload("s", ["once"]), result: null, finished_at: null }, {
      job_id: accepted.job_id
    }))
    const again = await startProcess(env)
    try {
      expect(await waitTerminal(again.port, accepted.job_id)).toMatchObject({ status: "succeeded", result: { turns_written: 1 } })
      expect(await turnContents(deployment, "alice")).toEqual(["once"])
    } finally {
      again.child.kill("SIGKILL")
      await again.exited
    }
  }, 60_000)

  it("kill -9 during a burst of async ingests: every acknowledged write is there exactly once after restart", async () => {
    const { deployment, env } = await deployed()
    const server = await startProcess(env)
    const acknowledged = new Map<string, string>()
    let killed = false
    const send = async (i: number) => {
      try {
        const response = await fetch(`http://127.0.0.1:${server.port}/v1/memories`, {
          method: "POST",
          headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
          body: JSON.stringify({ user_id: `user${i % 3}`, session_id: `burst-${i}`, infer: false, messages: [{ content: `burst message ${i}` }] })
        })
        if (response.status === 202) acknowledged.set((await response.json() as { job_id: string }).job_id, `burst message ${i}`)
      } catch {
        // The connection died with the process: not acknowledged.
      }
      if (acknowledged.size >= 40 && !killed) {
        killed = true
        server.child.kill("SIGKILL")
      }
    }
    const indexes = Array.from({ length: 400 }, (_, i) => i)
    for (let start = 0; start < indexes.length && !killed; start += 16) {
      await Promise.all(indexes.slice(start, start + 16).map(send))
    }
    await server.exited
    expect(acknowledged.size).toBeGreaterThanOrEqual(40)
    const again = await startProcess(env)
    try {
      for (const jobId of acknowledged.keys()) {
        expect((await waitTerminal(again.port, jobId)).status).toBe("succeeded")
      }
      const contents = (await Promise.all([0, 1, 2].map((u) => turnContents(deployment, `user${u}`)))).flat()
      for (const content of acknowledged.values()) {
        expect(contents.filter((c) => c === content), content).toHaveLength(1)
      }
      expect(new Set(contents).size).toBe(contents.length)
    } finally {
      again.child.kill("SIGKILL")
      await again.exited
    }
  })
})

describe("job retention", () => {
  it.scopedLive("keeps the newest SERVICE_JOB_RETENTION_MAX jobs; an older finished one is 404", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer({ SERVICE_JOB_RETENTION_MAX: "3" })
      const ids: Array<string> = []
      for (let i = 0; i < 5; i++) {
        const accepted = yield* rawFetch(`${baseUrl}/v1/memories`, {
          method: "POST",
          headers: { ...authHeaders(), "content-type": "application/json" },
          body: JSON.stringify({ user_id: "u", infer: false, messages: [{ content: `m${i}` }] })
        })
        const jobId = (accepted.body as { job_id: string }).job_id
        ids.push(jobId)
        // Only finished jobs are pruned: each one ends before the next is inserted.
        expect(yield* waitForJob(baseUrl, jobId)).toMatchObject({ status: "succeeded" })
      }
      const statuses = yield* Effect.forEach(ids, (id) => Effect.map(rawFetch(`${baseUrl}/v1/jobs/${id}`, { headers: authHeaders() }), (r) => r.status))
      expect(statuses).toEqual([404, 404, 200, 200, 200])
    }))
})

describe("a finished job's payload", () => {
  /** The job's row as stored, payload included: the API does not show it. */
  const storedJob = (server: Deployment, jobId: string) =>
    Effect.map(controlRows(server).select("jobs", { columns: ["status", "payload"], where: { job_id: jobId } }), ([row]) => row)

  const acceptIngest = (baseUrl: string, body: Record<string, unknown>) =>
    Effect.map(sendJson(`${baseUrl}/v1/memories`, { user_id: "alice", async_mode: true, ...body }), (accepted) => {
      expect(accepted.status).toBe(202)
      return (accepted.body as { job_id: string }).job_id
    })

  it.scopedLive("an ingest job that succeeded keeps no payload: the conversation's words are in the user's store only", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const jobId = yield* acceptIngest(server.baseUrl, { session_id: "s1", infer: false, messages: [{ content: "my locker code is quetzalcoatl" }] })
      expect(yield* waitForJob(server.baseUrl, jobId)).toMatchObject({ status: "succeeded", result: { turns_written: 1 } })
      const stored = yield* storedJob(server, jobId)
      expect(stored).toEqual({ status: "succeeded", payload: "{}" })
      expect(String(stored?.payload)).not.toContain("quetzalcoatl")
      // The job answers as before, and the turn is the user's.
      const job = yield* rawFetch(`${server.baseUrl}/v1/jobs/${jobId}`, { headers: authHeaders() })
      expect(job.status).toBe(200)
      expect(job.body).toMatchObject({ job_id: jobId, kind: "ingest", user_id: "alice", status: "succeeded", result: { turns_written: 1 }, error: null })
      expect((job.body as { finished_at: string | null }).finished_at).not.toBeNull()
      expect(yield* userRows(server).select("alice", "turns", { columns: ["content"] })).toEqual([{ content: "my locker code is quetzalcoatl" }])
    }))

  it.scopedLive("an ingest job that failed keeps no payload either", () =>
    Effect.gen(function*() {
      const stub = yield* providerStub("openai")
      const server = yield* startServer(llmEnv(stub))
      // Both attempts (SERVICE_LLM_MAX_RETRIES=1) refused: the extraction fails, and the job with it.
      stub.failNext(503, 2)
      const jobId = yield* acceptIngest(server.baseUrl, { messages: [{ content: "my locker code is quetzalcoatl" }] })
      const job = yield* waitForJob(server.baseUrl, jobId)
      expect(job).toMatchObject({ job_id: jobId, kind: "ingest", status: "failed", result: null })
      expect(job.error).toMatch(/^provider_unavailable: /)
      const stored = yield* storedJob(server, jobId)
      expect(stored).toEqual({ status: "failed", payload: "{}" })
      expect(String(stored?.payload)).not.toContain("quetzalcoatl")
    }))
})
