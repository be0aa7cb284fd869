import { describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Effect } from "effect"
import * as NodePath from "node:path"
import { llmEnv, providerStub } from "./support/llm.js"
import { API_KEY, authHeaders, ingestTurn, rawFetch, startServer } from "./support/server.js"
import { seedEntities, seedFacts, userRows } from "./support/userRows.js"

const ROOT = NodePath.resolve(import.meta.dirname, "..")
const READ_TOOLS = ["entity_timeline", "explore_memory", "get_context", "list_memories", "refine_search", "search_memory"]

/** The real service on port 0 whose user "alice" has one turn and two facts linked through an entity. */
const serverWithFacts = (env: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const server = yield* startServer(env)
    yield* ingestTurn(server.baseUrl, "alice", "We adopted a cat named Miso.")
    yield* seedFacts(server, "alice", [
      { fact_id: "fact_1", content: "Alice adopted a cat named Miso." },
      { fact_id: "fact_2", content: "Alice lives in Lisbon." }
    ])
    yield* seedEntities(server, "alice", [{ entity_id: "entity_miso", name: "Miso", normalized_name: "miso" }])
    const rows = userRows(server)
    yield* rows.insert("alice", "fact_entity_roles", [{ fact_id: "fact_1", entity_id: "entity_miso", role: "object" }])
    yield* rows.insert("alice", "edges", [{ edge_id: "e1", src_fact_id: "fact_2", dst_id: "fact_1", edge_type: "CO_OCCURS", created_at: 0 }])
    return server
  })

interface Connected {
  readonly client: Client
  /** Transport errors: a line on stdout that is not protocol shows up here. */
  readonly errors: Array<Error>
  readonly stderr: () => string
}

/** The MCP server as an agent host runs it: a child process speaking over stdin/stdout. */
const stdioClient = (env: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.promise(async (): Promise<Connected> => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [NodePath.join(ROOT, "dist/mcp/main.js")],
        cwd: ROOT,
        env: { ...getDefaultEnvironment(), ...env },
        stderr: "pipe"
      })
      let stderr = ""
      transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
      const errors: Array<Error> = []
      transport.onerror = (error) => errors.push(error)
      const client = new Client({ name: "mcp-test", version: "0.0.0" })
      await client.connect(transport)
      return { client, errors, stderr: () => stderr }
    }),
    ({ client }) => Effect.promise(() => client.close())
  )

interface ToolAnswer {
  readonly isError: boolean
  readonly text: string
  readonly json: unknown
}

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  Effect.promise(async (): Promise<ToolAnswer> => {
    const result = await client.callTool({ name, arguments: args })
    const content = Array.isArray(result.content) ? result.content : []
    const first: unknown = content[0]
    const text = typeof first === "object" && first !== null && "text" in first && typeof first.text === "string" ? first.text : ""
    let json: unknown = undefined
    try {
      json = JSON.parse(text)
    } catch {
      json = text
    }
    return { isError: result.isError === true, text, json }
  })

const toolNames = (client: Client) => Effect.promise(async () => (await client.listTools()).tools.map((tool) => tool.name).sort())

const env = (baseUrl: string, extra: Record<string, string> = {}) => ({
  SERVICE_API_URL: baseUrl,
  SERVICE_API_KEY: API_KEY,
  SERVICE_USER_ID: "alice",
  ...extra
})

describe("MCP over stdio", () => {
  it.scopedLive("read tools only by default; each answers from the service; bad input is a tool error", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* serverWithFacts()
      const { client, errors, stderr } = yield* stdioClient(env(baseUrl))
      expect(yield* toolNames(client)).toEqual(READ_TOOLS)

      const search = yield* call(client, "search_memory", { query: "cat named Miso", top_k: 500 })
      expect(search.isError).toBe(false)
      const hits = (search.json as { hits: Array<{ fact_id: string }> }).hits
      expect(hits.map((hit) => hit.fact_id)).toContain("fact_1")
      expect(hits.every((hit) => typeof hit.fact_id === "string")).toBe(true)
      expect(search.json).toHaveProperty("degraded")

      const context = yield* call(client, "get_context", { query: "cat", token_budget: 1 })
      expect(context.isError).toBe(false)
      expect(context.json).toMatchObject({ evidence_count: expect.any(Number), citations: expect.any(Array) })
      expect((context.json as { text: string }).text).toContain("Miso")

      const list = yield* call(client, "list_memories", { limit: 1000 })
      expect(list.json).toMatchObject({ total: 2 })
      expect(Object.keys((list.json as { memories: Array<object> }).memories[0]!).sort()).toEqual(
        ["confidence", "content", "id", "kind", "occurred_at", "status", "valid_from", "valid_until"]
      )

      const timeline = yield* call(client, "entity_timeline", { entity_id: "miso" })
      expect(timeline.json).toMatchObject({ entity_id: "miso", count: 1, items: [{ fact_id: "fact_1" }] })

      const explore = yield* call(client, "explore_memory", { start_id: "fact_1", depth: 9 })
      expect(explore.json).toMatchObject({ start_id: "fact_1", count: { edges: 1 } })

      const refine = yield* call(client, "refine_search", { query: "cat", entity: "Miso" })
      expect(refine.isError).toBe(false)
      expect(refine.json).toMatchObject({ filters: { entity: "Miso" } })

      const invalid = yield* call(client, "search_memory", { query: "cat", user_id: "../etc" })
      expect(invalid.isError).toBe(true)
      expect(invalid.text).toContain("invalid_user_id")
      const dots = yield* call(client, "list_memories", { user_id: "..." })
      expect(dots.isError).toBe(true)

      // Every stdout line parsed as protocol; logs, if any, went to stderr.
      expect(errors).toEqual([])
      expect(stderr()).not.toContain("jsonrpc")
    }), { timeout: 30_000 })

  it.scopedLive("a wrong key is a tool error with a hint, not a crash", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* serverWithFacts()
      const { client } = yield* stdioClient(env(baseUrl, { SERVICE_API_KEY: "wrong-key" }))
      const answer = yield* call(client, "list_memories")
      expect(answer.isError).toBe(true)
      expect(answer.text).toContain("unauthorized: invalid API key")
      expect(answer.text).toContain("SERVICE_API_KEY")
      // The server is still there for the next call.
      expect((yield* call(client, "list_memories", { user_id: "bob" })).isError).toBe(true)
    }), { timeout: 30_000 })

  it.scopedLive("SERVICE_MCP_ALLOW_WRITE=true adds add_memories and delete_memory", () =>
    Effect.gen(function*() {
      const stub = yield* providerStub("openai")
      const { baseUrl } = yield* serverWithFacts(llmEnv(stub))
      const { client, errors } = yield* stdioClient(env(baseUrl, { SERVICE_MCP_ALLOW_WRITE: "true" }))
      expect(yield* toolNames(client)).toEqual([...READ_TOOLS, "add_memories", "delete_memory"].sort())

      const added = yield* call(client, "add_memories", { messages: [{ content: "I started learning the cello in March." }] })
      expect(added.isError, added.text).toBe(false)
      expect(added.json).toMatchObject({ session_id: expect.stringMatching(/^mcp_[0-9a-f]{12}$/), turns_written: 1 })

      expect((yield* call(client, "delete_memory", { memory_id: "fact_2" })).json).toEqual({ id: "fact_2", deleted: true, already_deleted: false })
      expect((yield* call(client, "delete_memory", { memory_id: "fact_2" })).json).toMatchObject({ already_deleted: true })
      expect(errors).toEqual([])
    }), { timeout: 30_000 })
})

/** An MCP client over streamable HTTP to the service's own /mcp endpoint. */
const httpClient = (baseUrl: string, headers: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers } })
      const client = new Client({ name: "mcp-test", version: "0.0.0" })
      await client.connect(transport)
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )

describe("MCP over HTTP at /mcp", () => {
  it.scopedLive("with the key: lists the tools and calls one against the service in-process", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* serverWithFacts()
      const client = yield* httpClient(baseUrl, authHeaders())
      expect(yield* toolNames(client)).toEqual(READ_TOOLS)
      const search = yield* call(client, "search_memory", { query: "cat named Miso", user_id: "alice" })
      expect(search.isError, search.text).toBe(false)
      expect((search.json as { hits: Array<{ fact_id: string }> }).hits.map((hit) => hit.fact_id)).toContain("fact_1")
      // No SERVICE_USER_ID inside the server: the caller must name the user.
      expect((yield* call(client, "list_memories")).text).toContain("missing_user_id")
    }), { timeout: 30_000 })

  it.scopedLive("the write tools follow SERVICE_MCP_ALLOW_WRITE there too", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* serverWithFacts({ SERVICE_MCP_ALLOW_WRITE: "true" })
      const client = yield* httpClient(baseUrl, authHeaders())
      expect(yield* toolNames(client)).toContain("delete_memory")
      const deleted = yield* call(client, "delete_memory", { memory_id: "fact_2", user_id: "alice" })
      expect(deleted.json).toEqual({ id: "fact_2", deleted: true, already_deleted: false })
    }), { timeout: 30_000 })

  it.scopedLive("a memory deleted through the tools leaves every read tool, the words of the turn it came from included", () =>
    Effect.gen(function*() {
      const server = yield* serverWithFacts({ SERVICE_MCP_ALLOW_WRITE: "true" })
      yield* userRows(server).insert("alice", "fact_sources", [{ fact_id: "fact_1", span_id: "span_s1_1" }])
      const client = yield* httpClient(server.baseUrl, authHeaders())
      // Queries that name none of the words looked for: some tools echo their query.
      const reads = [
        ["search_memory", { query: "our cat" }],
        ["get_context", { query: "our cat" }],
        ["refine_search", { query: "our cat" }],
        ["entity_timeline", { entity_id: "miso" }],
        ["list_memories", {}]
      ] as const
      const said = (name: string, args: Record<string, unknown>) => Effect.map(call(client, name, { ...args, user_id: "alice" }), (answer) => answer.text)
      expect(yield* said("search_memory", { query: "cat named Miso" })).toContain("fact_1")
      expect(yield* said("get_context", { query: "our cat" })).toMatch(/adopted/)
      expect((yield* call(client, "delete_memory", { memory_id: "fact_1", user_id: "alice" })).json).toMatchObject({ deleted: true })
      for (const [name, args] of reads) expect(yield* said(name, args), name).not.toMatch(/fact_1|adopted|Miso/)
    }), { timeout: 30_000 })

  it.scopedLive("the tools keep the text rule: NUL or a lone surrogate in any argument is a validation_error, and nothing is written", () =>
    Effect.gen(function*() {
      const server = yield* serverWithFacts({ SERVICE_MCP_ALLOW_WRITE: "true" })
      const client = yield* httpClient(server.baseUrl, authHeaders())
      const refused = [
        ["add_memories", { messages: [{ content: "a\u0000b" }], session_id: "s9" }],
        ["add_memories", { messages: [{ content: "fine" }], session_id: "\ud800" }],
        ["search_memory", { query: "cat\u0000" }],
        ["refine_search", { query: "cat", entity: "\udc00" }],
        ["entity_timeline", { entity_id: "mi\u0000so" }],
        ["explore_memory", { start_id: "fact\u0000_1" }],
        ["delete_memory", { memory_id: "fact_1\u0000" }]
      ] as const
      for (const [name, args] of refused) {
        const answer = yield* call(client, name, { ...args, user_id: "alice" })
        expect(answer.isError, name).toBe(true)
        expect(answer.text, name).toContain("validation_error: ")
      }
      expect(yield* userRows(server).count("alice", "sessions", { session_id: "s9" })).toBe(0)
      expect(yield* userRows(server).count("alice", "facts", { fact_id: "fact_1", status: "active" })).toBe(1)
    }), { timeout: 30_000 })

  it.scopedLive("without a valid key: 401 in the envelope, and the SDK client cannot connect", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* serverWithFacts()
      const initialize = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } }
      })
      const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" }
      const missing = yield* rawFetch(`${baseUrl}/mcp`, { method: "POST", headers, body: initialize })
      expect(missing.status).toBe(401)
      expect(missing.body).toMatchObject({ code: "unauthorized", message: expect.stringContaining("missing API key") })
      const wrong = yield* rawFetch(`${baseUrl}/mcp`, { method: "POST", headers: { ...headers, authorization: "Bearer nope" }, body: initialize })
      expect(wrong.status).toBe(401)
      const refused = yield* Effect.promise(() =>
        new Client({ name: "mcp-test", version: "0.0.0" })
          .connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`)))
          .then(() => "connected", (error: unknown) => String(error))
      )
      expect(refused).not.toBe("connected")
    }), { timeout: 30_000 })
})
