import { describe, expect, it } from "@effect/vitest"
import * as NodeFs from "node:fs"
import * as NodeHttp from "node:http"
import type { AddressInfo } from "node:net"
import * as NodePath from "node:path"
import { makeNodeServer } from "../src/http/server.js"
import { jsonLines, runToExit, startProcess } from "./support/processes.js"
import { API_KEY, tempDataRoot } from "./support/server.js"

const get = async (port: number, path: string) => {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { authorization: `Bearer ${API_KEY}` } })
  return { status: response.status, body: await response.json() as Record<string, unknown> }
}

describe("data-root lock (real processes)", () => {
  it("a second process on the same root exits with data_root_locked; the first keeps serving and counts it", async () => {
    const dataRoot = tempDataRoot()
    const first = await startProcess({ SERVICE_API_KEY: API_KEY, SERVICE_DATA_ROOT: dataRoot })
    try {
      const second = await runToExit({ SERVICE_API_KEY: API_KEY, SERVICE_DATA_ROOT: dataRoot })
      expect(second.code).not.toBe(0)
      expect(jsonLines(second.stderr).at(-1)).toMatchObject({ code: "data_root_locked", details: { data_root: dataRoot } })
      expect((await get(first.port, "/health")).status).toBe(200)
      const config = await get(first.port, "/v1/admin/config")
      expect(config.body.lock_contention_count).toBe(1)
      expect(config.body.lock_contention_last).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/)
    } finally {
      first.child.kill("SIGKILL")
      await first.exited
    }
  })

  it("a process killed with SIGKILL never blocks a restart on its root", async () => {
    const dataRoot = tempDataRoot()
    for (let round = 0; round < 3; round++) {
      const server = await startProcess({ SERVICE_API_KEY: API_KEY, SERVICE_DATA_ROOT: dataRoot })
      expect((await get(server.port, "/health")).status).toBe(200)
      server.child.kill("SIGKILL")
      expect(await server.exited).toBeNull()
    }
  })

  it("SIGTERM shuts down cleanly with exit 0 and releases the lock", async () => {
    const dataRoot = tempDataRoot()
    const server = await startProcess({ SERVICE_API_KEY: API_KEY, SERVICE_DATA_ROOT: dataRoot })
    server.child.kill("SIGTERM")
    expect(await server.exited).toBe(0)
    const again = await startProcess({ SERVICE_API_KEY: API_KEY, SERVICE_DATA_ROOT: dataRoot })
    again.child.kill("SIGINT")
    expect(await again.exited).toBe(0)
  })

  it("a root that cannot be created is refused with data_root_not_writable", async () => {
    const file = NodePath.join(tempDataRoot(), "a-file")
    NodeFs.writeFileSync(file, "not a directory")
    const run = await runToExit({ SERVICE_API_KEY: API_KEY, SERVICE_DATA_ROOT: NodePath.join(file, "root") })
    expect(run.code).not.toBe(0)
    expect(jsonLines(run.stderr).at(-1)).toMatchObject({ code: "data_root_not_writable" })
  })
})

describe("graceful shutdown (real process)", () => {
  it("SIGTERM lets an in-flight request finish and persist before the process exits", async () => {
    const dataRoot = tempDataRoot()
    const server = await startProcess({ SERVICE_API_KEY: API_KEY, SERVICE_DATA_ROOT: dataRoot })
    const body = JSON.stringify({ name: "minted-during-shutdown" })
    const half = Math.floor(body.length / 2)
    const answer = new Promise<number>((resolve, reject) => {
      const request = NodeHttp.request(`http://127.0.0.1:${server.port}/v1/admin/keys`, {
        method: "POST",
        headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json", "content-length": String(body.length) }
      }, (response) => {
        response.resume()
        resolve(response.statusCode ?? 0)
      })
      request.on("error", reject)
      // The server starts handling the request once its headers arrive, then waits for the body.
      request.write(body.slice(0, half), () =>
        setTimeout(() => {
          server.child.kill("SIGTERM")
          setTimeout(() => request.end(body.slice(half)), 300)
        }, 300))
    })
    expect(await answer).toBe(201)
    expect(await server.exited).toBe(0)
    const again = await startProcess({ SERVICE_API_KEY: API_KEY, SERVICE_DATA_ROOT: dataRoot })
    try {
      const keys = await get(again.port, "/v1/admin/keys")
      expect(keys.body).toMatchObject({ total: 1, keys: [{ name: "minted-during-shutdown" }] })
    } finally {
      again.child.kill("SIGKILL")
      await again.exited
    }
  })
})

describe("requests arriving during shutdown", () => {
  it("are answered 503 service_unavailable once the service's handler is detached, never left hanging", async () => {
    const server = makeNodeServer()
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    try {
      const { port } = server.address() as AddressInfo
      const response = await fetch(`http://127.0.0.1:${port}/v1/admin/config`)
      expect(response.status).toBe(503)
      expect(response.headers.get("connection")).toBe("close")
      expect(await response.json()).toEqual({ code: "service_unavailable", message: "the service is shutting down; retry shortly", details: {} })
    } finally {
      server.close()
    }
  })
})
