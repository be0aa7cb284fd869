import { Command } from "@effect/cli"
import { describe, expect, it } from "@effect/vitest"
import { Effect, HashMap } from "effect"
import * as NodeHttp from "node:http"
import type { AddressInfo } from "node:net"
import { runCli } from "./support/cli.js"
import { llmEnv, providerStub } from "./support/llm.js"
import { loadRecorder } from "./support/loadedModules.js"
import { startProcess } from "./support/processes.js"
import { API_KEY, authHeaders, tempDataRoot } from "./support/server.js"
import { rootCommand } from "../src/cli/commands/index.js"
import { COMMANDS } from "../src/cli/commands/table.js"
import { SERVICE_VERSION } from "../src/version.js"

/** What a configuration that does not use them must not load: each is loaded on first use. */
const POSTGRES = ["pg", "@effect/sql-pg"]
const TRACING = ["@effect/opentelemetry", "@opentelemetry/sdk-trace-base", "@opentelemetry/exporter-trace-otlp-http"]
const OPENAI = ["openai"]
const TOKENIZER = ["gpt-tokenizer"]
const LOCAL_EMBEDDING = ["src/llm/local/workerPool.ts", "src/llm/local/localEmbeddings.ts"]
/** The Swagger UI bundle and the OpenAPI builder behind /docs and /openapi.json. */
const DOCUMENTATION = ["src/http/docsPages.ts", "@effect/platform/dist/cjs/internal/httpApiSwagger.js"]
/** prom-client, behind the Prometheus exposition. */
const PROMETHEUS = ["prom-client"]
/** The MCP server behind /mcp: its SDK, the RPC protocol and the tools. */
/** What `memory-service health` needs none of: the whole API's schemas and client, the other commands. */
const WHOLE_API = ["src/api/Api.ts", "src/api/MemoriesApi.ts", "src/api/RetrievalApi.ts", "src/client/index.ts"]
const OTHER_COMMANDS = ["src/cli/commands/index.ts", "src/cli/commands/add.ts", "src/cli/commands/memories.ts", "src/cli/commands/serve.ts"]
const MCP_SERVER = ["src/http/mcpApp.ts", "src/mcp/handlers.ts", "@effect/ai/dist/esm/McpServer.js", "@effect/rpc/dist/esm/RpcServer.js"]

/** A loopback stand-in for the service's /health that keeps the headers of each request it gets. */
const healthStub = Effect.acquireRelease(
  Effect.async<{ readonly port: number; readonly server: NodeHttp.Server; readonly requests: Array<NodeHttp.IncomingHttpHeaders> }>((resume) => {
    const requests: Array<NodeHttp.IncomingHttpHeaders> = []
    const server = NodeHttp.createServer((request, response) => {
      requests.push(request.headers)
      response.writeHead(200, { "content-type": "application/json" })
      response.end(JSON.stringify({ status: "ok", version: SERVICE_VERSION, schema_version: 7, auth: "enabled" }))
    })
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ port: (server.address() as AddressInfo).port, server, requests })))
  }),
  ({ server }) => Effect.async<void>((resume) => {
    server.close(() => resume(Effect.void))
  })
)

/** Which of `wanted` (sources, or package files by their path inside node_modules) are among the loaded inputs. */
const loadedInputs = (inputs: ReadonlySet<string>, wanted: ReadonlyArray<string>) =>
  wanted.filter((name) => [...inputs].some((input) => input === name || input.endsWith(`node_modules/${name}`)))

/**
 * Runs the service with `env` through `steps`, stops it, and says which modules it evaluated: V8
 * writes the counts behind that as the process exits.
 */
const serviceRun = <A>(env: Record<string, string>, steps: (port: number) => Effect.Effect<A>) =>
  Effect.gen(function*() {
    const recorder = loadRecorder()
    const service = yield* Effect.promise(() => startProcess({ SERVICE_API_KEY: API_KEY, SERVICE_DATA_ROOT: tempDataRoot(), ...env, ...recorder.env }))
    const result = yield* steps(service.port).pipe(Effect.ensuring(Effect.promise(() => {
      service.child.kill("SIGTERM")
      return service.exited
    })))
    return { result, packages: recorder.packages(), inputs: recorder.inputs() }
  })

const post = (port: number, path: string, body: unknown) =>
  Effect.promise(async () => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: "POST",
      headers: { ...authHeaders(), "content-type": "application/json" },
      body: JSON.stringify(body)
    })
    return { status: response.status, body: await response.text() }
  })

const get = (port: number, path: string) =>
  Effect.promise(async () => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers: authHeaders() })
    return { status: response.status, body: await response.text() }
  })

/** One turn stored for the user `lazy`, through the LLM's extraction or as said. */
const addTurn = (port: number, content: string, infer: boolean) =>
  post(port, "/v1/memories", { user_id: "lazy", messages: [{ role: "user", content }], infer, async_mode: false })

const loaded = (packages: ReadonlySet<string>, names: ReadonlyArray<string>) => names.filter((name) => packages.has(name))

describe("what a process loads is what its configuration uses", () => {
  it.scoped("a server on SQLite loads no PostgreSQL driver, tracing SDK, provider SDK or tokenizer; a context block loads the tokenizer", () =>
    Effect.gen(function*() {
      const env = { SERVICE_DATA_ROOT: tempDataRoot() }
      const stored = yield* serviceRun(env, (port) => addTurn(port, "I keep bees on the roof.", false))
      expect(stored.result.status).toBe(200)
      // The counts cover the bundle: the service's own sources and the packages inside it.
      expect(stored.packages.has("src")).toBe(true)
      expect(stored.packages.has("effect")).toBe(true)
      expect(loaded(stored.packages, [...POSTGRES, ...TRACING, ...OPENAI, ...TOKENIZER])).toEqual([])
      // Without a local model, neither the embedding pool nor its transport is loaded.
      expect([...stored.inputs].filter((input) => LOCAL_EMBEDDING.includes(input))).toEqual([])

      const context = yield* serviceRun(env, (port) => post(port, "/v1/context", { user_id: "lazy", query: "bees", token_budget: 200 }))
      expect(context.result.status).toBe(200)
      expect(context.result.body).toContain("I keep bees on the roof.")
      expect(loaded(context.packages, TOKENIZER)).toEqual(TOKENIZER)
    }))

  it.scoped("a server serves /health without the documentation, the MCP server or prom-client; /docs, /openapi.json, /mcp and the Prometheus exposition load them on their first request", () =>
    Effect.gen(function*() {
      const health = yield* serviceRun({}, (port) => get(port, "/health"))
      expect(health.result.status).toBe(200)
      expect(loadedInputs(health.inputs, [...DOCUMENTATION, ...MCP_SERVER])).toEqual([])
      expect(loaded(health.packages, PROMETHEUS)).toEqual([])

      const documentation = yield* serviceRun({}, (port) =>
        Effect.all({ document: get(port, "/openapi.json"), page: get(port, "/docs") }))
      expect(documentation.result.document.status).toBe(200)
      expect(Object.keys((JSON.parse(documentation.result.document.body) as { readonly paths: Record<string, unknown> }).paths)).toContain("/v1/memories")
      expect(documentation.result.page.status).toBe(200)
      expect(documentation.result.page.body).toContain("SwaggerUIBundle")
      expect(loadedInputs(documentation.inputs, DOCUMENTATION)).toEqual(DOCUMENTATION)
      expect(loadedInputs(documentation.inputs, MCP_SERVER)).toEqual([])
      expect(loaded(documentation.packages, PROMETHEUS)).toEqual([])

      const mcp = yield* serviceRun({}, (port) =>
        Effect.promise(async () => {
          const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
            method: "POST",
            headers: { ...authHeaders(), "content-type": "application/json", accept: "application/json, text/event-stream" },
            body: JSON.stringify({
              jsonrpc: "2.0",
              id: 1,
              method: "initialize",
              params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "lazy", version: "0" } }
            })
          })
          return { status: response.status, body: await response.text() }
        }))
      expect(mcp.result.status).toBe(200)
      expect(mcp.result.body).toContain("serverInfo")
      expect(loadedInputs(mcp.inputs, MCP_SERVER)).toEqual(MCP_SERVER)
      expect(loaded(mcp.packages, PROMETHEUS)).toEqual([])

      const exposition = yield* serviceRun({}, (port) => get(port, "/metrics"))
      expect(exposition.result.status).toBe(200)
      expect(exposition.result.body).toContain("# TYPE sodamem_http_requests_total counter")
      expect(loaded(exposition.packages, PROMETHEUS)).toEqual(PROMETHEUS)
    }))

  it.scoped("the OpenAI SDK loads at the provider's first call, not at start; the tracing SDK loads with an endpoint", () =>
    Effect.gen(function*() {
      const stub = yield* providerStub("openai")
      // Nothing listens there: spans are only batched until the process ends.
      const env = { ...llmEnv(stub), OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" }
      const started = yield* serviceRun(env, (port) => get(port, "/health"))
      expect(loaded(started.packages, OPENAI)).toEqual([])
      expect(loaded(started.packages, TRACING)).toEqual(TRACING)
      const extracted = yield* serviceRun(env, (port) => addTurn(port, "I moved to Lisbon in March.", true))
      expect(extracted.result.status).toBe(200)
      expect(stub.requests.length).toBeGreaterThan(0)
      expect(loaded(extracted.packages, OPENAI)).toEqual(OPENAI)
    }))

  it.scoped("memory-service health calls the service over node:http: the command line never loads fetch", () =>
    Effect.gen(function*() {
      const stub = yield* healthStub
      const health = yield* runCli(["health", "--api-url", `http://127.0.0.1:${stub.port}`])
      expect({ code: health.code, stdout: health.stdout }).toEqual({ code: 0, stdout: `ok  version ${SERVICE_VERSION}  schema 7  auth enabled\n` })
      // fetch marks every request it sends with the Fetch standard's own headers; node:http adds none.
      expect(stub.requests.map((headers) => headers["sec-fetch-mode"])).toEqual([undefined])
    }))

  it.scoped("memory-service health loads its own command and a client for the health route alone: not the other commands or the whole API", () =>
    Effect.gen(function*() {
      const stub = yield* healthStub
      const recorder = loadRecorder()
      const health = yield* runCli(["health", "--api-url", `http://127.0.0.1:${stub.port}`], { env: recorder.env })
      expect({ code: health.code, stdout: health.stdout }).toEqual({ code: 0, stdout: `ok  version ${SERVICE_VERSION}  schema 7  auth enabled\n` })
      const inputs = recorder.inputs()
      expect(loadedInputs(inputs, ["src/cli/commands/health.ts", "src/api/HealthOnlyApi.ts"])).toEqual(["src/cli/commands/health.ts", "src/api/HealthOnlyApi.ts"])
      expect(loadedInputs(inputs, [...WHOLE_API, ...OTHER_COMMANDS])).toEqual([])
    }))

  it.effect("every command the command line lists is one it can load on its own, by the same name", () =>
    Effect.sync(() => {
      const listed = [...HashMap.keys(Command.getSubcommands(rootCommand))].sort()
      expect(COMMANDS.map((entry) => entry.name).sort()).toEqual(listed)
    }))

  it.effect("memory-service --version answers before the commands load; --help loads none of the server, the storage engines, the MCP server or the SDKs", () =>
    Effect.gen(function*() {
      const versionLoads = loadRecorder()
      const version = yield* runCli(["--version"], { env: versionLoads.env })
      expect({ code: version.code, stdout: version.stdout }).toEqual({ code: 0, stdout: `${SERVICE_VERSION}\n` })
      expect(loaded(versionLoads.packages(), ["effect", "@effect/cli", "@effect/platform-node"])).toEqual([])

      const helpLoads = loadRecorder()
      const help = yield* runCli(["--help"], { env: helpLoads.env })
      expect(help.code).toBe(0)
      expect(help.stdout).toContain(`memory-service ${SERVICE_VERSION}`)
      const packages = helpLoads.packages()
      expect(packages.has("@effect/cli")).toBe(true)
      expect(loaded(packages, [...POSTGRES, ...TRACING, ...OPENAI, ...TOKENIZER, "@effect/ai", "prom-client", "@effect/sql-sqlite-node"])).toEqual([])
    }))
})
