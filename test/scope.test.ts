import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { dereference, type JsonSchema, type OpenApiDocument, type Operation, operationsOf } from "../scripts/reliability/openapiDocument.js"
import { llmEnv, providerStub } from "./support/llm.js"
import { authHeaders, rawFetch, sendJson, startServer } from "./support/server.js"
import { eventually, startReceiver } from "./support/webhookReceiver.js"

const SCOPE_KEYS = ["agent_id", "run_id", "project_id"] as const
type ScopeKey = typeof SCOPE_KEYS[number]

/** The memory's stamps, and another value of each key: a scope the memory is outside of. */
const STAMPED: Record<ScopeKey, string> = { agent_id: "a1", run_id: "r1", project_id: "p1" }
const OTHER: Record<ScopeKey, string> = { agent_id: "a2", run_id: "r2", project_id: "p2" }

/** A word only the scoped memory (and the turn it came from) holds: a response that carries it reveals the memory. */
const SECRET = "Zorblax"

const get = (url: string) => rawFetch(url, { headers: authHeaders() })

interface Memory {
  readonly id: string
  readonly content: string
  readonly status: string
}

interface Event {
  readonly event_id: string
  readonly memory_id: string | null
  readonly agent_id: string | null
  readonly run_id: string | null
  readonly project_id: string | null
}

const eventsOf = (baseUrl: string, query = "") =>
  Effect.map(get(`${baseUrl}/v1/events?user_id=alice&limit=200${query}`), (response) => (response.body as { events: Array<Event> }).events)

/** A server with an LLM (extraction and answers) and purge allowed, holding one memory of alice stamped with all three keys. */
const scopedMemory = Effect.gen(function*() {
  const stub = yield* providerStub("openai")
  const server = yield* startServer({ ...llmEnv(stub), SERVICE_ALLOW_PURGE: "true" })
  const ingested = yield* sendJson(`${server.baseUrl}/v1/memories`, {
    user_id: "alice",
    ...STAMPED,
    async_mode: false,
    session_id: "s1",
    messages: [{ role: "user", content: `Alice adopted a beagle named ${SECRET} in Lyon.` }]
  })
  expect(ingested.status).toBe(200)
  const listed = (yield* get(`${server.baseUrl}/v1/memories?user_id=alice`)).body as { memories: Array<Memory & Record<ScopeKey, string>> }
  const memory = listed.memories.find((candidate) => candidate.content.includes(SECRET))
  if (memory === undefined) return yield* Effect.dieMessage("the ingest extracted no memory naming the secret")
  expect(memory).toMatchObject(STAMPED)
  return { ...server, memory }
})

/** Values for the inputs an operation requires, by name; the memory's id where an id is asked for. */
const requiredValue = (name: string, memoryId: string): unknown => {
  const conversation = [{ role: "user", content: "Alice adopted a poodle." }]
  const values: Record<string, unknown> = {
    user_id: "alice",
    memory_id: memoryId,
    start_id: memoryId,
    entity_id: "Lyon",
    query: "beagle",
    question: "Which dog did Alice adopt?",
    content: "Alice adopted a poodle.",
    messages: conversation,
    sessions: [{ messages: conversation }],
    job_id: "job_unknown",
    key_id: "key_unknown",
    name: "scoped-key"
  }
  if (!(name in values)) throw new Error(`no value for the required input ${name}: give it one here`)
  return values[name]
}

const bodyProperties = (document: OpenApiDocument, operation: Operation): Readonly<Record<string, JsonSchema>> =>
  operation.body === undefined ? {} : dereference(document, operation.body).properties ?? {}

/** Where an operation takes each scope key: its query or its body. */
const scopeInputs = (document: OpenApiDocument, operation: Operation) => {
  const body = bodyProperties(document, operation)
  return SCOPE_KEYS.flatMap((key) => [
    ...(operation.parameters.some((parameter) => parameter.location === "query" && parameter.name === key) ? [{ key, location: "query" as const }] : []),
    ...(key in body ? [{ key, location: "body" as const }] : [])
  ])
}

/**
 * A request of the operation with one scope key set to `value`, every required input filled, and
 * the most an operation can do asked for: synchronous runs, and purge where it can purge.
 */
const request = (document: OpenApiDocument, operation: Operation, memoryId: string, scope: { key: ScopeKey; location: "query" | "body"; value: string }) => {
  const path = operation.template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(requiredValue(name, memoryId))))
  const query = new URLSearchParams()
  for (const parameter of operation.parameters) {
    if (parameter.location !== "query") continue
    if (parameter.required) query.set(parameter.name, String(requiredValue(parameter.name, memoryId)))
    if (parameter.name === "purge") query.set("purge", "true")
  }
  if (scope.location === "query") query.set(scope.key, scope.value)
  const properties = bodyProperties(document, operation)
  const required = operation.body === undefined ? [] : dereference(document, operation.body).required ?? []
  const body: Record<string, unknown> = Object.fromEntries(required.map((name) => [name, requiredValue(name, memoryId)]))
  for (const flag of ["async_mode", "async"]) if (flag in properties) body[flag] = false
  if (scope.location === "body") body[scope.key] = scope.value
  const url = `${path}?${query.toString()}`
  return operation.body === undefined
    ? { url, init: { method: operation.method, headers: authHeaders() } }
    : { url, init: { method: operation.method, headers: { ...authHeaders(), "content-type": "application/json" }, body: JSON.stringify(body) } }
}

/** Reads that answer by POST: the same request within the memory's scope must find it. */
const READS_BY_POST = new Set(["POST /v1/search", "POST /v1/context", "POST /v1/refine"])

/** The memory's words in a response reveal it; so does its id, unless the request named it (an error message repeats what was asked). */
const reveals = (sent: { readonly url: string; readonly init: RequestInit }, text: string, memoryId: string) =>
  text.includes(SECRET) || (!`${sent.url} ${String(sent.init.body ?? "")}`.includes(memoryId) && text.includes(memoryId))

describe("scope keys on every route", () => {
  it.scoped("every operation that takes a scope key, asked outside a memory's scope, neither reveals nor changes it", () =>
    Effect.gen(function*() {
      const { baseUrl, memory } = yield* scopedMemory
      const document = (yield* rawFetch(`${baseUrl}/openapi.json`)).body as OpenApiDocument
      const scoped = operationsOf(document).filter((operation) => scopeInputs(document, operation).length > 0)
      // The routes known to take scope keys are among those found: the enumeration sees them all.
      expect(scoped.map((operation) => operation.id)).toEqual(expect.arrayContaining([
        "GET /v1/memories", "DELETE /v1/memories", "POST /v1/memories", "POST /v1/memories/batch", "GET /v1/memories/{memory_id}",
        "PATCH /v1/memories/{memory_id}", "DELETE /v1/memories/{memory_id}", "POST /v1/search", "GET /v1/context", "POST /v1/context",
        "GET /v1/entity_timeline", "GET /v1/explore", "POST /v1/refine", "POST /v1/maintenance/dream", "POST /v1/answer", "GET /v1/events"
      ]))
      const unscopedView = get(`${baseUrl}/v1/memories/${memory.id}?user_id=alice`)
      const before = yield* unscopedView
      expect(before.status).toBe(200)

      const outcomes: Array<string> = []
      for (const operation of scoped) {
        for (const { key, location } of scopeInputs(document, operation)) {
          const label = `${operation.id} with ${key}=${OTHER[key]} in its ${location}`
          const known = new Set((yield* eventsOf(baseUrl)).map((event) => event.event_id))
          const outside = request(document, operation, memory.id, { key, location, value: OTHER[key] })
          const response = yield* rawFetch(`${baseUrl}${outside.url}`, outside.init)
          outcomes.push(`${label}: ${response.status}`)
          expect([200, 202, 404, 501], label).toContain(response.status)
          expect(reveals(outside, response.text, memory.id), `${label} reveals the memory: ${response.text}`).toBe(false)
          if (response.status === 501) {
            expect(response.body, label).toMatchObject({ code: "not_implemented", details: { scope_keys: [key] } })
            expect((response.body as { message: string }).message, label).toContain(key)
          }
          // Read back without scope: the memory is as it was, and whatever changed is in the request's own scope.
          const after = yield* unscopedView
          expect(after.status, label).toBe(200)
          expect(after.body, label).toEqual(before.body)
          const added = (yield* eventsOf(baseUrl)).filter((event) => !known.has(event.event_id))
          expect(added.filter((event) => event.memory_id === memory.id), label).toEqual([])
          expect(added.filter((event) => event[key] !== OTHER[key]), label).toEqual([])

          if (operation.method === "GET" || READS_BY_POST.has(operation.id)) {
            const inside = request(document, operation, memory.id, { key, location, value: STAMPED[key] })
            const found = yield* rawFetch(`${baseUrl}${inside.url}`, inside.init)
            expect(found.status, `${label}, asked within the scope`).toBe(200)
            expect(reveals(inside, found.text, memory.id), `${label}, asked within the scope, finds the memory: ${found.text}`).toBe(true)
          }
        }
      }
      expect(outcomes.length).toBeGreaterThanOrEqual(3 * 16)
    }), 120_000)

  it.scoped("a scope key in the query string of an operation that does not take it there is refused with 501, after authentication, and changes nothing", () =>
    Effect.gen(function*() {
      const { baseUrl, memory } = yield* scopedMemory
      const document = (yield* rawFetch(`${baseUrl}/openapi.json`)).body as OpenApiDocument
      const before = yield* get(`${baseUrl}/v1/memories/${memory.id}?user_id=alice`)
      const eventsBefore = yield* eventsOf(baseUrl)
      const refused: Array<string> = []
      for (const operation of operationsOf(document).filter((candidate) => candidate.secured)) {
        const inQuery = new Set(scopeInputs(document, operation).filter(({ location }) => location === "query").map(({ key }) => key))
        for (const key of SCOPE_KEYS.filter((candidate) => !inQuery.has(candidate))) {
          const label = `${operation.id} with ${key} in its query`
          const sent = request(document, operation, memory.id, { key, location: "query", value: STAMPED[key] })
          const response = yield* rawFetch(`${baseUrl}${sent.url}`, sent.init)
          expect(response.status, `${label}: ${response.text}`).toBe(501)
          expect(response.body, label).toMatchObject({ code: "not_implemented", details: { scope_keys: [key] } })
          expect((response.body as { message: string }).message, label).toContain(key)
          refused.push(label)
        }
      }
      expect(refused).toEqual(expect.arrayContaining(["POST /v1/search with agent_id in its query", "GET /v1/jobs/{job_id} with project_id in its query"]))
      expect((yield* get(`${baseUrl}/v1/memories/${memory.id}?user_id=alice`)).body).toEqual(before.body)
      expect(yield* eventsOf(baseUrl)).toEqual(eventsBefore)
      // Authentication comes first: without a key the answer is 401.
      expect((yield* rawFetch(`${baseUrl}/v1/jobs/job_unknown?agent_id=a1`)).status).toBe(401)
    }), 120_000)
})

const patch = (url: string, body: unknown) => sendJson(url, body, "PATCH")
const remove = (url: string) => rawFetch(url, { method: "DELETE", headers: authHeaders() })

describe("corrections and deletes narrow by scope", () => {
  it.scoped("PATCH takes scope keys in its query as in its body: another agent's memory is 404 and unchanged, its own is corrected", () =>
    Effect.gen(function*() {
      const { baseUrl, memory } = yield* scopedMemory
      const url = `${baseUrl}/v1/memories/${memory.id}`
      const before = yield* get(`${url}?user_id=alice`)
      const eventsBefore = yield* eventsOf(baseUrl)
      const correction = { user_id: "alice", content: "Alice adopted a poodle named Biscuit." }

      const otherAgent = yield* patch(`${url}?agent_id=a2`, correction)
      expect(otherAgent.status).toBe(404)
      expect(otherAgent.body).toMatchObject({ code: "not_found", message: `memory '${memory.id}' not found` })
      // Both places narrow: the query's key does not widen what the body's allows.
      expect((yield* patch(`${url}?agent_id=a1`, { ...correction, agent_id: "a2" })).status).toBe(404)
      expect((yield* patch(`${url}?run_id=r1&project_id=p2`, correction)).status).toBe(404)
      expect((yield* get(`${url}?user_id=alice`)).body).toEqual(before.body)
      expect(yield* eventsOf(baseUrl)).toEqual(eventsBefore)

      const own = yield* patch(`${url}?agent_id=a1&project_id=p1`, { ...correction, run_id: "r1" })
      expect(own.status).toBe(200)
      const corrected = own.body as { memory: Memory & Record<ScopeKey, string>; superseded_id: string }
      expect(corrected.superseded_id).toBe(memory.id)
      expect(corrected.memory).toMatchObject({ ...STAMPED, status: "active" })
      expect((yield* get(`${url}?user_id=alice`)).body).toMatchObject({ status: "superseded" })
      const added = (yield* eventsOf(baseUrl)).slice(0, -eventsBefore.length)
      expect(added.length).toBeGreaterThan(0)
      expect(added.every((event) => event.agent_id === "a1" && event.run_id === "r1" && event.project_id === "p1")).toBe(true)
      expect(added.some((event) => event.memory_id === memory.id)).toBe(true)
    }), 60_000)

  it.scoped("DELETE with a scope key acts only within it: another scope's memory and an unknown id are 404; its own is archived, then purged", () =>
    Effect.gen(function*() {
      const { baseUrl, memory } = yield* scopedMemory
      const url = `${baseUrl}/v1/memories/${memory.id}`
      const eventsBefore = yield* eventsOf(baseUrl)
      for (const query of ["agent_id=a2", "run_id=r2&purge=true", "agent_id=a1&project_id=p2&purge=true"]) {
        const refused = yield* remove(`${url}?user_id=alice&${query}`)
        expect(refused.status, query).toBe(404)
        expect(refused.body, query).toMatchObject({ code: "not_found" })
      }
      expect((yield* get(`${url}?user_id=alice`)).body).toMatchObject({ id: memory.id, status: "active" })
      expect(yield* eventsOf(baseUrl)).toEqual(eventsBefore)
      // A scoped caller cannot tell an id outside its scope from one that does not exist; an unscoped one keeps the reference's answer.
      expect((yield* remove(`${baseUrl}/v1/memories/fact_unknown?user_id=alice&agent_id=a1`)).status).toBe(404)
      expect((yield* remove(`${baseUrl}/v1/memories/fact_unknown?user_id=alice`)).body).toMatchObject({ deleted: false })

      expect((yield* remove(`${url}?user_id=alice&agent_id=a1`)).body).toMatchObject({ deleted: true, already_deleted: false })
      expect((yield* remove(`${url}?user_id=alice&agent_id=a1`)).body).toMatchObject({ deleted: true, already_deleted: true })
      expect((yield* remove(`${url}?user_id=alice&run_id=r1&purge=true`)).body).toMatchObject({ deleted: true, purged: true })
      const deletes = (yield* eventsOf(baseUrl)).filter((event) => event.memory_id === memory.id && !eventsBefore.some((old) => old.event_id === event.event_id))
      expect(deletes.map(({ agent_id, project_id, run_id }) => ({ agent_id, run_id, project_id }))).toEqual([STAMPED, STAMPED])
    }), 60_000)
})

describe("GET /v1/events", () => {
  it.scoped("narrows by the scope each event was stamped with: another scope's events are left out, unstamped ones are in every scope", () =>
    Effect.gen(function*() {
      const { baseUrl, memory } = yield* scopedMemory
      const unscoped = yield* sendJson(`${baseUrl}/v1/memories`, {
        user_id: "alice",
        async_mode: false,
        session_id: "s2",
        messages: [{ role: "user", content: "Alice moved to Porto." }]
      })
      expect(unscoped.status).toBe(200)
      // An archive made without scope is stamped with the memory's.
      expect((yield* remove(`${baseUrl}/v1/memories/${memory.id}?user_id=alice`)).body).toMatchObject({ deleted: true })

      const all = yield* eventsOf(baseUrl)
      const stampedEvents = all.filter((event) => event.agent_id === "a1")
      const unstampedEvents = all.filter((event) => event.agent_id === null)
      expect(stampedEvents.length + unstampedEvents.length).toBe(all.length)
      expect(stampedEvents.every((event) => event.run_id === "r1" && event.project_id === "p1")).toBe(true)
      expect(unstampedEvents.every((event) => event.run_id === null && event.project_id === null)).toBe(true)
      expect(stampedEvents.some((event) => event.memory_id === memory.id)).toBe(true)
      expect(unstampedEvents.length).toBeGreaterThan(0)

      const ids = (events: ReadonlyArray<Event>) => events.map((event) => event.event_id)
      for (const [query, expected] of [
        ["&agent_id=a1", all],
        ["&agent_id=a1&run_id=r1&project_id=p1", all],
        ["&agent_id=", all],
        ["&agent_id=a2", unstampedEvents],
        ["&run_id=r2", unstampedEvents],
        ["&agent_id=a1&project_id=p2", unstampedEvents]
      ] as const) {
        expect(ids(yield* eventsOf(baseUrl, query)), query).toEqual(ids(expected))
      }
      const page = (yield* get(`${baseUrl}/v1/events?user_id=alice&agent_id=a2&type=memory_delete`)).body
      expect(page).toMatchObject({ events: [], total: 0 })
      const deletes = (yield* get(`${baseUrl}/v1/events?user_id=alice&agent_id=a1&type=memory_delete`)).body as { events: Array<Event>; total: number }
      expect(deletes.total).toBe(1)
      expect(deletes.events[0]).toMatchObject({ memory_id: memory.id, ...STAMPED })
    }), 60_000)
})

describe("webhooks", () => {
  it.scopedLive("deliver each event with the scope /v1/events shows it with: one view for both", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver("whsec-scope-7e1a")
      const { baseUrl } = yield* startServer({ SERVICE_WEBHOOK_URL: receiver.url, SERVICE_WEBHOOK_SECRET: "whsec-scope-7e1a" })
      const stored = yield* sendJson(`${baseUrl}/v1/memories`, {
        user_id: "alice",
        ...STAMPED,
        infer: false,
        async_mode: false,
        messages: [{ role: "user", content: "I adopted a beagle." }]
      })
      expect(stored.status).toBe(200)
      yield* eventually("the ingest's change", () => receiver.deliveries.length > 0)
      const [listed] = yield* eventsOf(baseUrl)
      const { attempt: _attempt, delivery_id: _delivery, ...delivered } = receiver.deliveries[0]!.json
      expect(listed).toMatchObject(STAMPED)
      expect(delivered).toEqual(listed)
    }), 60_000)
})
