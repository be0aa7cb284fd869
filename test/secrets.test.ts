import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import * as NodePath from "node:path"
import { startProcess } from "./support/processes.js"
import { tempDataRoot } from "./support/server.js"

const API_KEY = "bootstrap-secret-9f3a7c"
const LLM_KEY = "llm-secret-51d2e8"

describe("secrets (real process)", () => {
  it("logs are JSON lines with the request id; the API key and the LLM key appear in no response, log line or request-log row", async () => {
    const dataRoot = tempDataRoot()
    const server = await startProcess({
      SERVICE_API_KEY: API_KEY,
      SERVICE_LLM_API_KEY: LLM_KEY,
      SERVICE_DATA_ROOT: dataRoot,
      SERVICE_LOG_LEVEL: "debug",
      SERVICE_ALLOW_PURGE: "true"
    })
    const seen: Array<string> = []
    const call = async (path: string, init: RequestInit = {}, key: string | null = API_KEY) => {
      const response = await fetch(`http://127.0.0.1:${server.port}${path}`, {
        ...init,
        headers: { ...(key === null ? {} : { authorization: `Bearer ${key}` }), "content-type": "application/json", ...init.headers }
      })
      seen.push(JSON.stringify([...response.headers.entries()]), await response.text())
    }
    try {
      const json = (body: unknown, method = "POST") => ({ method, body: JSON.stringify(body) })
      await call("/health")
      await call("/docs", {}, null)
      await call("/openapi.json", {}, null)
      await call("/v1/admin/config", { headers: { "x-request-id": "trace-log-1" } })
      await call("/v1/admin/keys", json({ name: "k1" }))
      await call("/v1/admin/keys")
      await call("/v1/memories", json({ user_id: "u", infer: false, async_mode: false, messages: [{ content: "hello" }] }))
      await call("/v1/memories", json({ user_id: "u", messages: [{ content: "needs an llm" }] }))
      await call("/v1/memories?user_id=u")
      await call("/v1/events?user_id=u")
      await call("/v1/jobs/none")
      await call("/v1/metrics")
      await call("/metrics")
      await call("/v1/admin/stats")
      await call("/v1/admin/requests")
      await call("/v1/admin/config", {}, "a-wrong-key")
      await call("/v1/admin/config", {}, null)
      await call("/v1/memories", { method: "POST", body: "{not json" })
      await call("/v1/memories?user_id=u&purge=true", { method: "DELETE" })
    } finally {
      server.child.kill("SIGTERM")
      await server.exited
    }
    const db = new Database(NodePath.join(dataRoot, ".control", "service_control.db"), { readonly: true })
    const rows = JSON.stringify(db.prepare("SELECT * FROM request_log").all())
    db.close()
    const logs = server.stdout() + server.stderr()
    const served = logs.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as { message: unknown; annotations: Record<string, unknown> })
      .find((line) => line.annotations.request_id === "trace-log-1")
    expect(served).toMatchObject({ message: "request served", annotations: { route: "/v1/admin/config", status: 200, key_name: "bootstrap" } })
    expect(rows).toContain("/v1/admin/config")
    for (const secret of [API_KEY, LLM_KEY]) {
      expect(seen.join("\n")).not.toContain(secret)
      expect(logs).not.toContain(secret)
      expect(rows).not.toContain(secret)
    }
  })
})
