import { describe, expect, it } from "@effect/vitest"
import { Effect, Schedule } from "effect"
import { spawn } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { freePort } from "../scripts/freePort.js"
import { nodeHeaders, offlineLockfile, run } from "./support/packageInstall.js"
import { baseEnv } from "./support/processes.js"
import { API_KEY, rawFetch } from "./support/server.js"

const ROOT = NodePath.resolve(import.meta.dirname, "..")
const APP = "memory-service-install-check"
/** Installing builds better-sqlite3 from source: minutes on a busy machine. */
const INSTALL_TIMEOUT_MS = 20 * 60_000

/** `npx memory-service serve` in the app's folder, in its own process group, stopped with the scope. */
const serve = (cwd: string, env: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const child = spawn("npx", ["memory-service", "serve"], { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] })
      let output = ""
      child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
      child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
      const exited = new Promise<void>((done) => child.once("exit", () => done()))
      return { child, exited, output: () => output }
    }),
    ({ child, exited }) =>
      Effect.promise(() => {
        // npx runs the bin in a child of its own: the group goes together.
        if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, "SIGTERM")
        return exited
      })
  )

/** Polls /health until it answers 200: the install's first start reads every bundle from disk. */
const untilHealthy = (port: number, output: () => string) =>
  Effect.tryPromise(() => fetch(`http://127.0.0.1:${port}/health`)).pipe(
    Effect.filterOrFail((response) => response.status === 200, (response) => new Error(`status ${response.status}`)),
    Effect.retry(Schedule.spaced("100 millis")),
    Effect.timeoutFail({ duration: "3 minutes", onTimeout: () => new Error(`the installed service never answered /health\n${output()}`) })
  )

describe("the package, packed and installed into an empty folder", () => {
  it.scopedLive("npx memory-service serve answers /health and serves the console; memory-service/client imports and calls it", () =>
    Effect.gen(function*() {
      const folder = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "memory-package-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => NodeFs.rmSync(folder, { recursive: true, force: true })))
      const app = NodePath.join(folder, "app")
      NodeFs.mkdirSync(app)
      // No registry is asked: packages come from npm's cache, the native module is built here.
      const env = {
        ...baseEnv(),
        npm_config_offline: "true",
        npm_config_audit: "false",
        npm_config_fund: "false",
        npm_config_update_notifier: "false",
        // prebuild-install would look for a prebuilt binary on the network first.
        npm_config_build_from_source: "better-sqlite3",
        ...nodeHeaders()
      }

      const packed = yield* run("npm", ["pack", "--pack-destination", folder], { cwd: ROOT, env, timeoutMs: 5 * 60_000 })
      expect({ code: packed.code, output: packed.code === 0 ? "" : packed.output }).toEqual({ code: 0, output: "" })
      const tarball = NodeFs.readdirSync(folder).find((file) => file.endsWith(".tgz"))
      expect(tarball).toBeDefined()
      const tarballPath = NodePath.join(folder, tarball!)

      NodeFs.writeFileSync(NodePath.join(app, "package.json"), JSON.stringify({
        name: APP,
        version: "0.0.0",
        private: true,
        type: "module",
        dependencies: { "memory-service": `file:${tarballPath}` },
        allowScripts: { "better-sqlite3": true, "msgpackr-extract": true }
      }))
      NodeFs.writeFileSync(NodePath.join(app, "package-lock.json"), JSON.stringify(offlineLockfile(APP, tarballPath)))
      const installed = yield* run("npm", ["ci", "--offline"], { cwd: app, env, timeoutMs: INSTALL_TIMEOUT_MS })
      expect({ code: installed.code, output: installed.code === 0 ? "" : installed.output }).toEqual({ code: 0, output: "" })

      // What an install pulls is what the bundle leaves outside, and what the typed client needs.
      const modules = NodeFs.readdirSync(NodePath.join(app, "node_modules"))
      expect(modules).toEqual(expect.arrayContaining(["better-sqlite3", "sqlite-vec", "effect", "@effect", "memory-service"]))
      expect(modules.filter((name) => ["pg", "openai", "gpt-tokenizer", "@opentelemetry", "prom-client", "typescript"].includes(name))).toEqual([])
      // The framework adapters ship, with their types; the frameworks are optional peers, left out.
      expect(modules.filter((name) => ["ai", "@langchain", "@openai", "zod"].includes(name))).toEqual([])
      for (const adapter of ["ai-sdk", "langchain", "openai-agents"]) {
        for (const file of ["index.js", "index.d.ts"]) {
          expect(NodeFs.existsSync(NodePath.join(app, "node_modules/memory-service/dist/adapters", adapter, file)), `${adapter}/${file}`).toBe(true)
        }
      }

      const port = yield* Effect.promise(freePort)
      const dataRoot = NodePath.join(folder, "data")
      const server = yield* serve(app, { ...env, SERVICE_DATA_ROOT: dataRoot, SERVICE_PORT: String(port), SERVICE_HOST: "127.0.0.1", SERVICE_API_KEY: API_KEY })
      yield* untilHealthy(port, server.output)
      const health = yield* rawFetch(`http://127.0.0.1:${port}/health`)
      expect(health.body).toMatchObject({ status: "ok", auth: "enabled" })
      const consolePage = yield* rawFetch(`http://127.0.0.1:${port}/console/`)
      expect(consolePage.status).toBe(200)
      expect(consolePage.headers.get("content-type")).toContain("text/html")
      expect(consolePage.text).toContain("<script")
      expect(NodeFs.existsSync(dataRoot)).toBe(true)

      NodeFs.writeFileSync(NodePath.join(app, "client.mjs"), [
        "import { makePromiseClient } from \"memory-service/client\"",
        "const memory = await makePromiseClient({ baseUrl: process.argv[2], apiKey: process.argv[3] })",
        "await memory.memories.add({ payload: { user_id: \"pack\", messages: [{ role: \"user\", content: \"I grow tomatoes on the balcony.\" }], infer: false, async_mode: false } })",
        "const { hits } = await memory.retrieval.search({ payload: { user_id: \"pack\", query: \"tomatoes\", top_k: 3, include_superseded: false } })",
        "console.log(JSON.stringify(hits.map((hit) => hit.content)))",
        // A context block counts tokens with the tokenizer the build keeps beside the bundle.
        "const context = await memory.retrieval.context({ payload: { user_id: \"pack\", query: \"tomatoes\", token_budget: 200 } })",
        "console.log(`context holds the turn: ${context.text.includes(\"I grow tomatoes on the balcony.\")}`)"
      ].join("\n"))
      const client = yield* run(process.execPath, ["client.mjs", `http://127.0.0.1:${port}`, API_KEY], { cwd: app, env, timeoutMs: 2 * 60_000 })
      expect({ code: client.code, output: client.code === 0 ? "" : client.output }).toEqual({ code: 0, output: "" })
      expect(client.output).toContain("tomatoes")
      expect(client.output).toContain("context holds the turn: true")
      // The Swagger UI's assets come from the installed @effect/platform, not from the bundle.
      const docs = yield* rawFetch(`http://127.0.0.1:${port}/docs`)
      expect(docs.status).toBe(200)
      expect(docs.text).toContain("SwaggerUIBundle")
    }), INSTALL_TIMEOUT_MS + 10 * 60_000)
})
