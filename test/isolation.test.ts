import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as NodeFs from "node:fs"
import * as NodeNet from "node:net"
import * as NodePath from "node:path"
import { llmEnv, providerStub } from "./support/llm.js"
import { API_KEY, apiClient, authHeaders, rawFetch, sendJson, startServer, tempDataRoot } from "./support/server.js"
import { userRows } from "./support/userRows.js"

interface Parameter {
  readonly name: string
  readonly in: string
}
interface Operation {
  readonly parameters?: ReadonlyArray<Parameter>
  readonly requestBody?: { readonly content: Record<string, { readonly schema: SchemaObject }> }
}
interface SchemaObject {
  readonly $ref?: string
  readonly properties?: Record<string, unknown>
}
interface Document {
  readonly paths: Record<string, Record<string, Operation>>
  readonly components: { readonly schemas: Record<string, SchemaObject> }
}

const resolve = (document: Document, schema: SchemaObject): SchemaObject =>
  schema.$ref === undefined ? schema : document.components.schemas[schema.$ref.split("/").pop()!] ?? {}

// Values for the fields routes commonly require, so a request gets as far as its user_id check.
const FILLERS: Record<string, unknown> = {
  messages: [{ content: "hello" }],
  sessions: [{ messages: [{ content: "hello" }] }],
  content: "hello",
  query: "hello",
  question: "hello",
  entity_id: "hello",
  start_id: "hello",
  infer: false,
  async_mode: false
}

const ODD_USER_IDS = [
  "..", ".", "../outside", "a/../../outside", "/tmp/absolute", "a\\b", "%2e%2e", ".hidden", "-flag", "a b", "a\u0000b",
  "ü", "x".repeat(129), ""
]

/** Every documented operation that takes a user_id, as a request with that user_id set to `userId`. */
const requestsWithUserId = (document: Document, userId: string) =>
  Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).flatMap(([method, operation]) => {
      const query = new URLSearchParams()
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in !== "query") continue
        if (parameter.name === "user_id") query.set("user_id", userId)
        else if (parameter.name in FILLERS) query.set(parameter.name, String(FILLERS[parameter.name]))
      }
      const bodySchema = operation.requestBody?.content["application/json"]?.schema
      const properties = bodySchema === undefined ? undefined : resolve(document, bodySchema).properties ?? {}
      const takesUserId = query.has("user_id") || (properties !== undefined && "user_id" in properties)
      if (!takesUserId) return []
      const body = properties === undefined ? undefined : Object.fromEntries([
        ["user_id", userId],
        ...Object.keys(properties).filter((name) => name in FILLERS).map((name) => [name, FILLERS[name]])
      ])
      return [{
        label: `${method.toUpperCase()} ${path}`,
        url: `${path.replace(/\{[^}]+\}/g, "some-id")}${query.size > 0 ? `?${query}` : ""}`,
        init: {
          method: method.toUpperCase(),
          headers: { ...authHeaders(), "content-type": "application/json" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) })
        }
      }]
    }))

describe("user_id never escapes the data root", () => {
  it.scoped("every documented route refuses odd user_ids with invalid_scope or a validation error, and writes nothing", () =>
    Effect.gen(function*() {
      const outer = tempDataRoot()
      const dataRoot = NodePath.join(outer, "root")
      // With an LLM configured, the LLM routes get as far as their user_id check too.
      const stub = yield* providerStub()
      const server = yield* startServer({ ...llmEnv(stub), SERVICE_DATA_ROOT: dataRoot })
      const { baseUrl } = server
      const document = (yield* rawFetch(`${baseUrl}/openapi.json`)).body as Document
      const codes = new Set<string>()
      let sent = 0
      for (const userId of ODD_USER_IDS) {
        for (const request of requestsWithUserId(document, userId)) {
          const response = yield* rawFetch(`${baseUrl}${request.url}`, request.init)
          const code = (response.body as { code?: string }).code ?? ""
          expect([400, 422], `${request.label} user_id=${JSON.stringify(userId)}: ${response.text.slice(0, 200)}`).toContain(response.status)
          expect(["invalid_scope", "validation_error"]).toContain(code)
          codes.add(code)
          sent++
        }
      }
      expect(sent).toBeGreaterThan(ODD_USER_IDS.length * 15)
      expect(codes).toContain("invalid_scope")
      expect(NodeFs.readdirSync(outer).filter((name) => name !== "root")).toEqual([])
      expect(yield* userRows(server).users).toEqual([])
    }))
})

describe("one user cannot reach another's memory by id", () => {
  it.scoped("bob gets 404 or nothing for alice's memory on every route, and it stays as it was", () =>
    Effect.gen(function*() {
      const stub = yield* providerStub()
      const { baseUrl } = yield* startServer({ ...llmEnv(stub), SERVICE_ALLOW_PURGE: "true" })
      const ingest = (userId: string, content: string) =>
        sendJson(`${baseUrl}/v1/memories`, { user_id: userId, async_mode: false, messages: [{ role: "user", content }] })
      expect((yield* ingest("alice", "I live in Lisbon with my cat Miso.")).status).toBe(200)
      expect((yield* ingest("bob", "I work as a baker in Porto.")).status).toBe(200)
      const listed = yield* rawFetch(`${baseUrl}/v1/memories?user_id=alice`, { headers: authHeaders() })
      const alices = (listed.body as { memories: Array<{ id: string; content: string }> }).memories
      expect(alices.length).toBeGreaterThan(0)
      const target = alices[0]!
      const path = `${baseUrl}/v1/memories/${encodeURIComponent(target.id)}`

      expect((yield* rawFetch(`${path}?user_id=bob`, { headers: authHeaders() })).status).toBe(404)
      expect((yield* sendJson(path, { user_id: "bob", content: "I live in Madrid." }, "PATCH")).status).toBe(404)
      for (const query of ["user_id=bob", "user_id=bob&purge=true"]) {
        const deleted = yield* rawFetch(`${path}?${query}`, { method: "DELETE", headers: authHeaders() })
        expect(deleted.status, query).toBe(200)
        expect(deleted.body, query).toMatchObject({ deleted: false })
      }
      const explored = yield* rawFetch(`${baseUrl}/v1/explore?user_id=bob&start_id=${encodeURIComponent(target.id)}`, { headers: authHeaders() })
      expect(explored.body).toMatchObject({ nodes: [], edges: [] })
      const searched = yield* sendJson(`${baseUrl}/v1/search`, { user_id: "bob", query: "Lisbon cat Miso", top_k: 20 })
      expect(JSON.stringify((searched.body as { hits: unknown }).hits)).not.toContain("Lisbon")
      const context = yield* rawFetch(`${baseUrl}/v1/context?user_id=bob&query=Lisbon`, { headers: authHeaders() })
      expect((context.body as { text: string }).text).not.toContain("Lisbon")
      const timeline = yield* rawFetch(`${baseUrl}/v1/entity_timeline?user_id=bob&entity_id=Lisbon`, { headers: authHeaders() })
      expect(timeline.body).toMatchObject({ items: [] })
      const events = yield* rawFetch(`${baseUrl}/v1/events?user_id=bob`, { headers: authHeaders() })
      expect(events.text).not.toContain(target.id)

      const still = yield* rawFetch(`${path}?user_id=alice`, { headers: authHeaders() })
      expect(still.status).toBe(200)
      expect(still.body).toMatchObject({ id: target.id, content: target.content, status: "active" })
    }))
})

describe("named keys", () => {
  it.scoped("a key works until it is revoked and fails on the very next request", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const admin = yield* apiClient(baseUrl)
      const minted = yield* admin.admin.createKey({ payload: { name: "short-lived" } })
      const asMinted = { authorization: `Bearer ${minted.api_key}` }
      expect((yield* rawFetch(`${baseUrl}/v1/memories?user_id=u`, { headers: asMinted })).status).toBe(200)
      yield* admin.admin.revokeKey({ path: { key_id: minted.key.id } })
      const refused = yield* rawFetch(`${baseUrl}/v1/memories?user_id=u`, { headers: asMinted })
      expect(refused.status).toBe(401)
      expect(refused.body).toMatchObject({ code: "unauthorized" })
    }))

  it.scoped("/health, /docs and /openapi.json answer without a key; an admin route does not", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      for (const path of ["/health", "/docs", "/openapi.json"]) {
        expect((yield* rawFetch(`${baseUrl}${path}`)).status, path).toBe(200)
      }
      expect((yield* rawFetch(`${baseUrl}/v1/admin/config`)).status).toBe(401)
    }))
})

/**
 * Opens a connection that declares a body and sends it a byte every 100 ms, never finishing;
 * resolves when the server closes it.
 */
const trickle = (port: number) =>
  new Promise<{ readonly closedAfterMs: number; readonly answer: string }>((resolve) => {
    const started = Date.now()
    let answer = ""
    const socket = NodeNet.connect(port, "127.0.0.1", () => {
      socket.write(`POST /v1/search HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${API_KEY}\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{"query":`)
    })
    const dripping = setInterval(() => socket.write(" "), 100)
    socket.on("data", (chunk: Buffer) => (answer += chunk.toString()))
    socket.on("error", () => {})
    socket.on("close", () => {
      clearInterval(dripping)
      resolve({ closedAfterMs: Date.now() - started, answer })
    })
  })

describe("slow bodies", () => {
  it.scoped("a client trickling its body is cut off at SERVICE_REQUEST_TIMEOUT_MS, and the server keeps serving", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer({ SERVICE_REQUEST_TIMEOUT_MS: "1000" })
      const port = Number(new URL(baseUrl).port)
      const outcomes = yield* Effect.promise(() => Promise.all(Array.from({ length: 20 }, () => trickle(port))))
      for (const outcome of outcomes) {
        expect(outcome.closedAfterMs).toBeGreaterThanOrEqual(900)
        expect(outcome.closedAfterMs).toBeLessThan(10_000)
        expect(outcome.answer.startsWith("HTTP/1.1 408"), outcome.answer).toBe(true)
        expect(envelopeOf(outcome.answer)).toMatchObject({ code: "request_timeout", details: {} })
      }
      expect((yield* rawFetch(`${baseUrl}/health`)).status).toBe(200)
    }), 30_000)
})

/** The JSON body of a raw HTTP answer. */
const envelopeOf = (answer: string): unknown => JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))

/** Sends raw bytes on a new connection; resolves with all the server wrote before closing it. */
const sendRaw = (port: number, bytes: string) =>
  new Promise<string>((resolve) => {
    let answer = ""
    const socket = NodeNet.connect(port, "127.0.0.1", () => socket.write(bytes))
    socket.on("data", (chunk: Buffer) => (answer += chunk.toString()))
    socket.on("error", () => {})
    socket.on("close", () => resolve(answer))
  })

describe("requests that never become HTTP requests", () => {
  it.scoped("headers too large and bytes that are not HTTP are answered in the envelope, and the connection closed", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const port = Number(new URL(baseUrl).port)
      const huge = yield* Effect.promise(() => sendRaw(port, `GET /health HTTP/1.1\r\nhost: x\r\nx-pad: ${"a".repeat(20_000)}\r\n\r\n`))
      expect(huge.startsWith("HTTP/1.1 431"), huge.slice(0, 80)).toBe(true)
      expect(envelopeOf(huge)).toMatchObject({ code: "headers_too_large", details: {} })
      const garbage = yield* Effect.promise(() => sendRaw(port, "NOT HTTP AT ALL\r\n\r\n"))
      expect(garbage.startsWith("HTTP/1.1 400"), garbage.slice(0, 80)).toBe(true)
      expect(envelopeOf(garbage)).toMatchObject({ code: "bad_request", details: {} })
      expect((yield* rawFetch(`${baseUrl}/health`)).status).toBe(200)
    }))
})
