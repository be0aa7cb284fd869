import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Option, Redacted } from "effect"
import { loadSettings } from "../src/config/AppConfig.js"
import * as NodeFs from "node:fs"
import * as NodeNet from "node:net"
import * as NodePath from "node:path"
import { jsonLines, runToExit, startProcess } from "./support/processes.js"
import { tempDataRoot } from "./support/server.js"

const load = (env: Record<string, string>) =>
  loadSettings.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))), Effect.either)

const failureOf = (env: Record<string, string>) =>
  Effect.map(load(env), (result) => {
    if (Either.isRight(result)) throw new Error(`expected ${JSON.stringify(env)} to be refused`)
    return result.left
  })

describe("configuration", () => {
  it.effect("has the documented defaults, with secrets redacted", () =>
    Effect.gen(function*() {
      const settings = Either.getOrThrow(yield* load({ SERVICE_API_KEY: "k" }))
      expect(settings).toMatchObject({
        authDisabled: false,
        dataRoot: "/data",
        storeCacheMax: 64,
        allowPurge: false,
        requestLogMax: 10_000,
        requestLogFlushMs: 200,
        jobRetentionMax: 5_000,
        jobLeaseMs: 30_000,
        maxBodyBytes: 10 * 1024 * 1024,
        port: 8000,
        corsOrigins: [],
        apiUrl: "http://127.0.0.1:8000",
        mcp: { allowWrite: false, logLevel: "WARNING" },
        llm: { provider: "openai" }
      })
      expect(Option.map(settings.apiKey, Redacted.value)).toEqual(Option.some("k"))
      expect(String(Option.getOrThrow(settings.apiKey))).toBe("<redacted>")
    }))

  it.effect("refuses each invalid setting, naming the variable", () =>
    Effect.gen(function*() {
      const cases: Array<[Record<string, string>, string]> = [
        [{}, "SERVICE_API_KEY"],
        [{ SERVICE_API_KEY: "k", SERVICE_PORT: "eighty" }, "SERVICE_PORT"],
        [{ SERVICE_API_KEY: "k", SERVICE_PORT: "70000" }, "SERVICE_PORT"],
        [{ SERVICE_API_KEY: "k", SERVICE_STORE_CACHE_MAX: "0" }, "SERVICE_STORE_CACHE_MAX"],
        [{ SERVICE_API_KEY: "k", SERVICE_REQUEST_LOG_MAX: "1.5" }, "SERVICE_REQUEST_LOG_MAX"],
        [{ SERVICE_API_KEY: "k", SERVICE_REQUEST_LOG_FLUSH_MS: "0" }, "SERVICE_REQUEST_LOG_FLUSH_MS"],
        [{ SERVICE_API_KEY: "k", SERVICE_ALLOW_PURGE: "maybe" }, "SERVICE_ALLOW_PURGE"],
        [{ SERVICE_API_KEY: "k", SERVICE_CORS_ORIGINS: "https://a.example,https://b.example" }, "SERVICE_CORS_ORIGINS"],
        [{ SERVICE_API_KEY: "k", SERVICE_CORS_ORIGINS: "[\"https://a.example/path\"]" }, "SERVICE_CORS_ORIGINS"],
        [{ SERVICE_API_KEY: "k", SERVICE_CORS_ORIGINS: "[\"*\"]" }, "SERVICE_CORS_ORIGINS"],
        [{ SERVICE_API_KEY: "k", SERVICE_LLM_PROVIDER: "cohere" }, "SERVICE_LLM_PROVIDER"],
        [{ SERVICE_API_KEY: "k", SERVICE_EMBED_DIMENSIONS: "-3" }, "SERVICE_EMBED_DIMENSIONS"],
        [{ SERVICE_API_KEY: "k", SERVICE_JOB_LEASE_SECONDS: "0" }, "SERVICE_JOB_LEASE_SECONDS"],
        [{ SERVICE_API_KEY: "k", SERVICE_JOB_LEASE_SECONDS: "3601" }, "SERVICE_JOB_LEASE_SECONDS"],
        [{ SERVICE_API_KEY: "k", SERVICE_DATABASE_POOL_MAX: "0" }, "SERVICE_DATABASE_POOL_MAX"]
      ]
      for (const [env, variable] of cases) {
        const error = yield* failureOf(env)
        expect(error.code, JSON.stringify(env)).toBe("config_invalid")
        expect(error.details.variable).toBe(variable)
      }
    }))

  it.effect("allows the wildcard origin only while auth is off", () =>
    Effect.gen(function*() {
      const settings = Either.getOrThrow(yield* load({ SERVICE_AUTH_DISABLED: "true", SERVICE_CORS_ORIGINS: "[\"*\"]" }))
      expect(settings.corsOrigins).toEqual(["*"])
    }))

  it("a refused start exits non-zero with one JSON line on stderr, and never prints a secret", async () => {
    const runs = await Promise.all([
      runToExit({ SERVICE_DATA_ROOT: tempDataRoot() }),
      runToExit({ SERVICE_DATA_ROOT: tempDataRoot(), SERVICE_API_KEY: "top-secret-value", SERVICE_PORT: "abc" }),
      runToExit({ SERVICE_DATA_ROOT: tempDataRoot(), SERVICE_API_KEY: "top-secret-value", SERVICE_LLM_PROVIDER: "nope" })
    ])
    const expected = ["SERVICE_API_KEY", "SERVICE_PORT", "SERVICE_LLM_PROVIDER"]
    runs.forEach((run, i) => {
      expect(run.code).not.toBe(0)
      const lines = jsonLines(run.stderr)
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatchObject({ code: "config_invalid", details: { variable: expected[i] } })
      expect(typeof lines[0]?.message).toBe("string")
      expect(run.stderr + run.stdout).not.toContain("top-secret-value")
    })
  }, 90_000)

  it("a port in use stops the start naming it, before the data root is made", async () => {
    const holder = NodeNet.createServer()
    await new Promise<void>((listening) => holder.listen({ port: 0, host: "127.0.0.1" }, listening))
    const address = holder.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    try {
      const dataRoot = NodePath.join(tempDataRoot(), "not-yet")
      const run = await runToExit({ SERVICE_DATA_ROOT: dataRoot, SERVICE_API_KEY: "top-secret-value", SERVICE_PORT: String(port) })
      expect(run.code).not.toBe(0)
      const lines = jsonLines(run.stderr)
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatchObject({ code: "port_unavailable", details: { port, host: "127.0.0.1", reason: "EADDRINUSE" } })
      expect(String(lines[0]?.message)).toContain(`port ${port}`)
      expect(NodeFs.existsSync(dataRoot)).toBe(false)
    } finally {
      await new Promise((closed) => holder.close(closed))
    }
  }, 90_000)

  it("warns loudly at start when authentication is disabled", async () => {
    const server = await startProcess({ SERVICE_DATA_ROOT: tempDataRoot(), SERVICE_AUTH_DISABLED: "true" })
    server.child.kill("SIGTERM")
    await server.exited
    const warning = jsonLines(server.stdout()).find((line) => line.logLevel === "WARN")
    expect(String(warning?.message)).toContain("authentication is DISABLED")
  })
})
