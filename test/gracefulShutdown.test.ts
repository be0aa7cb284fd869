import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import * as NodeFs from "node:fs"
import * as NodeHttp from "node:http"
import * as NodePath from "node:path"
import { startProcess } from "./support/processes.js"
import { API_KEY, tempDataRoot } from "./support/server.js"
import { queryStore } from "./support/stores.js"

type Outcome =
  | { readonly kind: "answered"; readonly status: number; readonly body: Record<string, unknown> }
  | { readonly kind: "refused" }
  | { readonly kind: "dropped"; readonly error: string }

/**
 * One request on its own connection (no keep-alive, so no request can race a connection the
 * server is closing as idle): a refused connection never reached the service, a dropped one did.
 */
const send = (port: number, method: string, path: string, body?: unknown) =>
  new Promise<Outcome>((resolve) => {
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const request = NodeHttp.request({
      host: "127.0.0.1",
      port,
      path,
      method,
      agent: false,
      headers: {
        authorization: `Bearer ${API_KEY}`,
        connection: "close",
        ...(payload === undefined ? {} : { "content-type": "application/json", "content-length": String(Buffer.byteLength(payload)) })
      }
    }, (response) => {
      let text = ""
      response.on("data", (chunk: Buffer) => (text += chunk.toString()))
      response.on("end", () => resolve({ kind: "answered", status: response.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }))
      response.on("error", (error) => resolve({ kind: "dropped", error: error.message }))
    })
    request.on("error", (error: NodeJS.ErrnoException) =>
      resolve(error.code === "ECONNREFUSED" ? { kind: "refused" } : { kind: "dropped", error: `${error.code}: ${error.message}` }))
    request.end(payload)
  })

const waitTerminal = async (port: number, jobId: string) => {
  for (let i = 0; i < 500; i++) {
    const job = await send(port, "GET", `/v1/jobs/${jobId}`)
    const status = job.kind === "answered" ? String(job.body.status) : ""
    if (status === "succeeded" || status === "failed") return status
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return "unfinished"
}

/** Waits until the control plane holds no pending or running job (bounded: about 10 s). */
const jobsDrained = async (dataRoot: string) => {
  for (let i = 0; i < 500; i++) {
    const db = new Database(NodePath.join(dataRoot, ".control", "service_control.db"), { readonly: true })
    const open = db.prepare("SELECT count(*) AS n FROM jobs WHERE status IN ('pending', 'running')").get() as { n: number }
    db.close()
    if (open.n === 0) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error("jobs still open after restart")
}

describe("graceful shutdown under load (real process)", () => {
  it("SIGTERM answers every request it took, keeps every acknowledged write and job, closes the stores and releases the lock", async () => {
    const dataRoot = tempDataRoot()
    const server = await startProcess({ SERVICE_API_KEY: API_KEY, SERVICE_DATA_ROOT: dataRoot })
    interface Sent {
      readonly content: string
      readonly userId: string
      outcome?: Outcome
    }
    const sent: Array<Sent> = []
    let stopping = false
    const client = async (c: number) => {
      // Until the listener is gone (refused), at most 20 requests past the SIGTERM.
      for (let i = 0, afterStop = 0; afterStop < 20; i++) {
        if (stopping) afterStop++
        const entry: Sent = { content: `shutdown ${c}-${i}`, userId: `sd_u${c % 4}` }
        sent.push(entry)
        const asyncMode = i % 2 === 1
        entry.outcome = await send(server.port, "POST", "/v1/memories", {
          user_id: entry.userId,
          infer: false,
          async_mode: asyncMode,
          messages: [{ content: entry.content }]
        })
        if (entry.outcome.kind === "refused") return
      }
    }
    const clients = Array.from({ length: 24 }, (_, c) => client(c))
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    server.child.kill("SIGTERM")
    stopping = true
    await Promise.all(clients)
    expect(await server.exited).toBe(0)

    const outcomes = sent.map((entry) => entry.outcome!)
    const answered = outcomes.flatMap((outcome) => outcome.kind === "answered" ? [outcome] : [])
    for (const outcome of answered) {
      if (outcome.status === 503) expect(outcome.body).toMatchObject({ code: "service_unavailable" })
      else expect([200, 202]).toContain(outcome.status)
    }
    const acknowledged = sent.filter((entry) => entry.outcome?.kind === "answered" && entry.outcome.status < 300)
    expect(acknowledged.length).toBeGreaterThan(20)

    // Stores closed cleanly leave no write-ahead log behind; so does the control plane.
    const users = NodeFs.readdirSync(dataRoot).filter((entry) => !entry.startsWith("."))
    for (const file of [...users.map((user) => NodePath.join(dataRoot, user, "store.db")), NodePath.join(dataRoot, ".control", "service_control.db")]) {
      expect(NodeFs.existsSync(`${file}-wal`), file).toBe(false)
      const db = new Database(file, { readonly: true })
      expect(db.pragma("integrity_check", { simple: true }), file).toBe("ok")
      db.close()
    }

    const again = await startProcess({ SERVICE_API_KEY: API_KEY, SERVICE_DATA_ROOT: dataRoot })
    try {
      for (const entry of acknowledged) {
        const outcome = entry.outcome as Extract<Outcome, { kind: "answered" }>
        if (outcome.status === 202) expect(await waitTerminal(again.port, String(outcome.body.job_id)), entry.content).toBe("succeeded")
      }
      await jobsDrained(dataRoot)
      const copiesOf = (entry: Sent) =>
        queryStore<{ n: number }>(dataRoot, entry.userId, "SELECT count(*) AS n FROM turns WHERE content = ?", entry.content)[0]!.n
      for (const entry of acknowledged) expect(copiesOf(entry), entry.content).toBe(1)
      // A connection still queued in the kernel, or accepted but not yet read, is reset when the
      // listener closes: such a request never reached the service, so it left no trace.
      for (const entry of sent.filter((e) => e.outcome?.kind === "dropped")) expect(copiesOf(entry), entry.content).toBe(0)
    } finally {
      again.child.kill("SIGKILL")
      await again.exited
    }
  }, 90_000)
})
