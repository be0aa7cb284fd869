import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Option, Redacted } from "effect"
import * as NodeFs from "node:fs"
import * as NodeNet from "node:net"
import { loadSettings } from "../src/config/AppConfig.js"
import { freshDatabase } from "./support/postgres.js"
import { jsonLines, runToExit, startProcess } from "./support/processes.js"
import { tempDataRoot } from "./support/server.js"

const SECRET = "s3cret-db-pass"

const settings = (env: Record<string, string>) =>
  loadSettings.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries({ SERVICE_API_KEY: "k", ...env })))), Effect.either)

const refusal = (env: Record<string, string>) => Effect.flatMap(settings(env), Either.match({ onLeft: Effect.succeed, onRight: () => Effect.dieMessage("accepted") }))

/** A loopback port nothing listens on. */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const server = NodeNet.createServer().listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 1))
    })
  })

describe("SERVICE_DATABASE_URL", () => {
  it.effect("unset keeps the embedded SQLite; set, it is a secret with a bounded pool", () =>
    Effect.gen(function*() {
      const embedded = Either.getOrThrow(yield* settings({}))
      expect(Option.isNone(embedded.database)).toBe(true)
      const database = Option.getOrThrow(Either.getOrThrow(yield* settings({ SERVICE_DATABASE_URL: `postgres://app:${SECRET}@db:5432/memory` })).database)
      expect(database.poolMax).toBe(10)
      expect(Redacted.value(database.url)).toBe(`postgres://app:${SECRET}@db:5432/memory`)
      expect(String(database.url)).not.toContain(SECRET)
    }))

  it.effect("refuses a URL that is not PostgreSQL's, and a pool out of bounds, without printing the value", () =>
    Effect.gen(function*() {
      for (const url of ["mysql://app:x@db/memory", "not a url", `postgres://:${SECRET}@/memory`]) {
        const refused = yield* refusal({ SERVICE_DATABASE_URL: url })
        expect(refused).toMatchObject({ code: "config_invalid", details: { variable: "SERVICE_DATABASE_URL" } })
        expect(refused.message).not.toContain(SECRET)
      }
      const pool = yield* refusal({ SERVICE_DATABASE_URL: "postgres://db/memory", SERVICE_DATABASE_POOL_MAX: "0" })
      expect(pool).toMatchObject({ code: "config_invalid", details: { variable: "SERVICE_DATABASE_POOL_MAX" } })
    }))

  it("an unreachable database stops the start: store_unavailable, one JSON line, exit non-zero, no password", async () => {
    const port = await closedPort()
    const run = await runToExit({ SERVICE_API_KEY: "k", SERVICE_DATA_ROOT: tempDataRoot(), SERVICE_DATABASE_URL: `postgres://app:${SECRET}@127.0.0.1:${port}/memory` })
    expect(run.code).not.toBe(0)
    const lines = jsonLines(run.stderr)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({ code: "store_unavailable", details: { variable: "SERVICE_DATABASE_URL" } })
    expect(run.stderr + run.stdout).not.toContain(SECRET)
  })

  it("a reachable database serves users' data there and leaves the data root untouched", async () => {
    const url = await Effect.runPromise(freshDatabase)
    const dataRoot = tempDataRoot()
    const service = await startProcess({ SERVICE_API_KEY: "k", SERVICE_DATA_ROOT: dataRoot, SERVICE_DATABASE_URL: url })
    try {
      const base = `http://127.0.0.1:${service.port}`
      const headers = { authorization: "Bearer k", "content-type": "application/json" }
      const added = await fetch(`${base}/v1/memories`, {
        method: "POST",
        headers,
        body: JSON.stringify({ user_id: "alice", messages: [{ role: "user", content: "I adopted a beagle named Rex" }], infer: false, async_mode: false })
      })
      expect(added.status).toBe(200)
      const search = await fetch(`${base}/v1/search`, { method: "POST", headers, body: JSON.stringify({ user_id: "alice", query: "beagles" }) })
      const body = await search.json() as { hits: Array<{ content: string }> }
      expect(body.hits.map((hit) => hit.content)).toEqual(["I adopted a beagle named Rex"])
      expect(NodeFs.readdirSync(dataRoot)).toEqual([])
    } finally {
      service.child.kill("SIGTERM")
      await service.exited
    }
  })
})
