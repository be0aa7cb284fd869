import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { ProviderStub } from "../scripts/stubs/llm-providers.js"
import { llmEnv, providerStub } from "./support/llm.js"
import { freshDatabase } from "./support/postgres.js"
import * as NodeFs from "node:fs"
import * as NodeHttp from "node:http"
import * as NodePath from "node:path"
import { runCli } from "./support/cli.js"
import { unreadableBodyAnswer } from "./support/mediaTypes.js"
import { API_KEY, authHeaders, onPostgres, rawFetch, sendJson, startServer, tempDataRoot } from "./support/server.js"

const SOURCE = "export-source-7"
const MOVED = "moved-user-8"
const BACK = "back-again-9"

type Json = Record<string, unknown>

/** A server on the suite's backend, or on the other one. */
const serverOn = (stub: ProviderStub, backend: "suite" | "other") =>
  Effect.gen(function*() {
    const env = { ...llmEnv(stub), SERVICE_ALLOW_PURGE: "true" }
    if (backend === "suite") return yield* startServer(env)
    // An empty SERVICE_DATABASE_URL is unset: the embedded SQLite.
    return yield* startServer({ ...env, SERVICE_DATABASE_URL: onPostgres ? "" : yield* freshDatabase })
  })

const get = (url: string) => rawFetch(url, { headers: authHeaders() })

const exportOf = (baseUrl: string, userId: string, vectors = true) => get(`${baseUrl}/v1/export?user_id=${userId}&include_vectors=${vectors}`)

const importInto = (baseUrl: string, userId: string, body: string) =>
  rawFetch(`${baseUrl}/v1/import?user_id=${userId}`, {
    method: "POST",
    headers: { ...authHeaders(), "content-type": "application/x-ndjson" },
    body
  })

/** A server on the suite's backend where SOURCE has one session of verbatim turns, and SOURCE's export (no vectors). */
const exportedSource = (session: Json) =>
  Effect.gen(function*() {
    const { baseUrl } = yield* serverOn(yield* providerStub("openai"), "suite")
    yield* sendJson(`${baseUrl}/v1/memories`, { user_id: SOURCE, infer: false, async_mode: false, ...session })
    return { baseUrl, text: (yield* exportOf(baseUrl, SOURCE, false)).text }
  })

/** Each body (its lines, the line to be named, the message) refused with 422 naming that line, and nothing loaded. */
const expectRefusedLines = (baseUrl: string, cases: ReadonlyArray<readonly [ReadonlyArray<string>, number, RegExp]>) =>
  Effect.forEach(cases, ([body, line, message]) =>
    Effect.gen(function*() {
      const refused = yield* importInto(baseUrl, MOVED, body.join("\n"))
      expect({ status: refused.status, body: refused.body }, String(message)).toMatchObject({ status: 422, body: { code: "validation_error", details: { line } } })
      expect((refused.body as { message: string }).message).toMatch(message)
      expect((yield* exportOf(baseUrl, MOVED)).status).toBe(404)
    }), { discard: true })

const records = (text: string): Array<Json> => text.trim().split("\n").map((line) => JSON.parse(line) as Json)

/** A user written through the API: verbatim turns, extracted memories, a correction, an archive, a purge and a dream's profiles. */
const buildUser = (baseUrl: string) =>
  Effect.gen(function*() {
    const add = (contents: ReadonlyArray<string>, extra: Json) =>
      sendJson(`${baseUrl}/v1/memories`, { user_id: SOURCE, async_mode: false, messages: contents.map((content) => ({ content })), ...extra })
    yield* add(["I bought a new car last week.", "We watched a movie on Sunday."], { infer: false, session_id: "verbatim" })
    yield* add(["I moved to Berlin last year.", "I work at Zanzibar Logistics.", "I collect Quetzalcoatl figurines."], {
      session_id: "facts",
      session_time: "2024-03-05"
    })
    const { memories } = (yield* get(`${baseUrl}/v1/memories?user_id=${SOURCE}&limit=100`)).body as { memories: Array<{ id: string; content: string }> }
    const find = (word: string) => memories.find((memory) => memory.content.includes(word))!.id
    expect((yield* sendJson(`${baseUrl}/v1/memories/${find("Berlin")}`, { user_id: SOURCE, content: "I moved to Lisbon in March." }, "PATCH")).status).toBe(200)
    const archived = yield* rawFetch(`${baseUrl}/v1/memories/${find("Zanzibar")}?user_id=${SOURCE}`, { method: "DELETE", headers: authHeaders() })
    expect(archived.status).toBe(200)
    const purged = yield* rawFetch(`${baseUrl}/v1/memories/${find("Quetzalcoatl")}?user_id=${SOURCE}&purge=true`, { method: "DELETE", headers: authHeaders() })
    expect(purged.body).toMatchObject({ purged: true })
    expect((yield* sendJson(`${baseUrl}/v1/maintenance/dream`, { user_id: SOURCE })).status).toBe(200)
  })

/** What the API answers about a user, its id written as `<user>` and the import's own event left out. */
const viewsOf = (baseUrl: string, userId: string) =>
  Effect.gen(function*() {
    const views: Json = {}
    views.list = (yield* get(`${baseUrl}/v1/memories?user_id=${userId}&limit=100`)).body
    const events = (yield* get(`${baseUrl}/v1/events?user_id=${userId}&limit=200`)).body as { events: Array<{ details: Json }> }
    views.events = events.events.filter((event) => event.details.action !== "import")
    views.timeline = (yield* get(`${baseUrl}/v1/entity_timeline?user_id=${userId}&entity=lisbon`)).body
    for (const query of ["automobile", "where do I live", "movie on Sunday"]) {
      views[`search/${query}`] = (yield* sendJson(`${baseUrl}/v1/search`, { user_id: userId, query })).body
      views[`context/${query}`] = (yield* sendJson(`${baseUrl}/v1/context`, { user_id: userId, query })).body
    }
    return JSON.parse(JSON.stringify(views).replaceAll(userId, "<user>")) as Json
  })

/** The views without bm25's scores, which each backend computes its own way (the ranks and order stay). */
const withoutScores = (views: Json): Json => JSON.parse(JSON.stringify(views, (key, value: unknown) => key === "score" ? "<score>" : value)) as Json

describe("one user's export and import", () => {
  it.scopedLive("moves a user to the other backend and back under new ids: the same list, search, context and events; forgotten words never leave", () =>
    Effect.gen(function*() {
      const stub = yield* providerStub("openai")
      const source = yield* serverOn(stub, "suite")
      const other = yield* serverOn(stub, "other")
      yield* buildUser(source.baseUrl)
      const before = yield* viewsOf(source.baseUrl, SOURCE)

      const exported = yield* exportOf(source.baseUrl, SOURCE)
      expect(exported.status).toBe(200)
      expect(exported.headers.get("content-type")).toContain("application/x-ndjson")
      for (const word of ["Zanzibar", "Quetzalcoatl", "figurines"]) expect(exported.text).not.toContain(word)
      const lines = records(exported.text)
      expect(lines[0]).toMatchObject({ type: "header", format: "memory-service.user-export", version: 1, user_id: SOURCE, vectors: { model: expect.any(String) } })
      expect(lines[lines.length - 1]).toEqual({ type: "end", records: lines.length - 2 })
      const types = new Set(lines.map((line) => line.type))
      for (const type of ["session", "turn", "span", "fact", "fact_source", "entity", "entity_role", "event"]) expect(types).toContain(type)
      expect(lines.filter((line) => line.type === "fact").map((line) => line.status)).toContain("superseded")
      expect(lines.some((line) => line.type === "turn" && typeof line.vector === "string")).toBe(true)

      const moved = yield* importInto(other.baseUrl, MOVED, exported.text)
      expect({ status: moved.status, body: moved.body }).toEqual({ status: 201, body: { user_id: MOVED, source_user_id: SOURCE } })
      expect(withoutScores(yield* viewsOf(other.baseUrl, MOVED))).toEqual(withoutScores(before))

      const again = yield* exportOf(other.baseUrl, MOVED)
      expect((yield* importInto(source.baseUrl, BACK, again.text)).status).toBe(201)
      expect(yield* viewsOf(source.baseUrl, BACK)).toEqual(before)
      const events = (yield* get(`${source.baseUrl}/v1/events?user_id=${BACK}&limit=1`)).body as { events: Array<Json> }
      expect(events.events[0]).toMatchObject({ type: "memory_add", memory_id: null, details: { action: "import", source_user_id: MOVED } })
    }), { timeout: 180_000 })

  it.scopedLive("answers 404 for a user without data, and refuses to load into a user with data (409)", () =>
    Effect.gen(function*() {
      const stub = yield* providerStub("openai")
      const { baseUrl } = yield* serverOn(stub, "suite")
      const unknown = yield* exportOf(baseUrl, "nobody-here")
      expect({ status: unknown.status, code: (unknown.body as Json).code }).toEqual({ status: 404, code: "not_found" })
      yield* sendJson(`${baseUrl}/v1/memories`, { user_id: SOURCE, infer: false, async_mode: false, messages: [{ content: "I like tea." }] })
      const exported = yield* exportOf(baseUrl, SOURCE, false)
      expect(records(exported.text).some((line) => "vector" in line)).toBe(false)
      const occupied = yield* importInto(baseUrl, SOURCE, exported.text)
      expect({ status: occupied.status, code: (occupied.body as Json).code }).toEqual({ status: 409, code: "conflict" })
      const kept = records((yield* exportOf(baseUrl, SOURCE, false)).text)
      expect(kept.filter((line) => line.type === "turn").map((line) => line.content)).toEqual(["I like tea."])
    }), { timeout: 120_000 })

  it.scopedLive("refuses a malformed line with 422 naming it, and loads nothing", () =>
    Effect.gen(function*() {
      const { baseUrl, text } = yield* exportedSource({ messages: [{ content: "I like tea." }, { content: "I live by the sea." }] })
      const lines = text.trim().split("\n")
      const turn = lines.findIndex((line) => line.includes(`"type":"turn"`))
      const cases: ReadonlyArray<readonly [Array<string>, number, RegExp]> = [
        [lines.map((line, i) => i === turn ? "{not json" : line), turn + 1, /not JSON/],
        [lines.map((line, i) => i === turn ? line.replace(/"position":\d+/, `"position":"first"`) : line), turn + 1, /position/],
        [lines.map((line, i) => i === turn ? line.replace(/"session_id":"[^"]*"/, `"session_id":"elsewhere"`) : line), turn + 1, /unknown session elsewhere/],
        [lines.flatMap((line, i) => i === lines.length - 1 ? [lines[turn]!, line] : [line]), lines.length, /a turn record after/],
        [[...lines, lines[turn]!], lines.length + 1, /a record after the end record/],
        [lines.slice(0, -1), lines.length, /cut short/],
        [lines.map((line, i) => i === lines.length - 1 ? `{"type":"end","records":1}` : line), lines.length, /end record counts 1 records/],
        [lines.slice(1), 1, /not an export header/]
      ]
      yield* expectRefusedLines(baseUrl, cases)
    }), { timeout: 120_000 })

  it.scopedLive("refuses text no store keeps, content over a turn's limit and keys longer than the indexes take: 422 naming the line, nothing loaded", () =>
    Effect.gen(function*() {
      const { baseUrl, text } = yield* exportedSource({ session_id: "tea", messages: [{ content: "I like tea." }] })
      const lines = text.trim().split("\n")
      const session = lines.findIndex((line) => line.includes(`"type":"session"`))
      const turn = lines.findIndex((line) => line.includes(`"type":"turn"`))
      const span = lines.findIndex((line) => line.includes(`"type":"span"`))
      // A memory written by hand, with one number as the test spells it.
      const factWith = (number: string) =>
        `{"type":"fact","seq":1,"fact_id":"fact_1","content":"Tea.","kind":"preference","status":"active","session_id":"tea","occurred_at":null,` +
        `"valid_from":null,"valid_until":null,${number},"metadata":{},"agent_id":null,"run_id":null,"project_id":null,"superseded_by":null,` +
        `"created_at":"2026-11-27T00:00:00.000000+00:00","updated_at":"2026-11-27T00:00:00.000000+00:00"}`
      // An edge from that memory, created at the time the test spells.
      const edgeCreatedAt = (time: string) =>
        `{"type":"edge","edge_id":"edge_1","src_fact_id":"fact_1","dst_id":"fact_1","edge_type":"relates_to","predicate":null,"confidence":null,"metadata":{},"created_at":${time}}`
      const withContent = (content: string) => lines.map((line, i) => i === turn ? line.replace(`"content":"I like tea."`, `"content":${JSON.stringify(content)}`) : line)
      const cases: ReadonlyArray<readonly [Array<string>, number, RegExp]> = [
        // Escaped in the JSON as \u0000 and \ud800, as any JSON writer sends them.
        [withContent("I like\u0000 tea."), turn + 1, /content holds a NUL character/],
        [withContent("I like \ud800 tea."), turn + 1, /content holds a lone UTF-16 surrogate/],
        [withContent("a".repeat(524_289)), turn + 1, /content has more than 524288 bytes/],
        [lines.map((line) => line.replaceAll(`"tea"`, `"${"t".repeat(600)}"`)), session + 1, /session_id has 600 characters, more than the 512/],
        [lines.map((line, i) => i === turn ? line.replace(/"turn_id":"[^"]*"/, `"turn_id":"${"x".repeat(3000)}"`) : line), turn + 1, /turn_id has 3000 characters/],
        // Numbers PostgreSQL's integer, or any store alike, does not hold.
        [lines.map((line, i) => i === turn ? line.replace(/"position":\d+/, `"position":2147483648`) : line), turn + 1, /position/],
        [lines.map((line, i) => i === span ? line.replace(/"end_offset":\d+/, `"end_offset":3000000000`) : line), span + 1, /end_offset/],
        [[...lines.slice(0, span + 1), factWith(`"confidence":1e999`), ...lines.slice(span + 1, -1), `{"type":"end","records":${lines.length - 1}}`], span + 2, /confidence/],
        [[...lines.slice(0, span + 1), factWith(`"confidence":0.9`), edgeCreatedAt("1e999"), ...lines.slice(span + 1, -1), `{"type":"end","records":${lines.length}}`], span + 3, /created_at/]
      ]
      yield* expectRefusedLines(baseUrl, cases)
    }), { timeout: 120_000 })

  it.scopedLive("reads a body only when it is declared as JSON lines in UTF-8: a page of any origin cannot send one without a preflight", () =>
    Effect.gen(function*() {
      const { baseUrl, text: body } = yield* exportedSource({ messages: [{ content: "I like tea." }] })
      const send = (contentType: string | undefined) =>
        rawFetch(`${baseUrl}/v1/import?user_id=${MOVED}`, {
          method: "POST",
          headers: { ...authHeaders(), ...(contentType === undefined ? {} : { "content-type": contentType }) },
          // A Blob without a type is sent with no Content-Type at all, as a browser sends it.
          body: contentType === undefined ? new Blob([body]) : body
        })
      const refusals: ReadonlyArray<readonly [string | undefined, string]> = [
        [undefined, "the body has no Content-Type; send it as application/x-ndjson"],
        ["text/plain", "the body is text/plain; send it as application/x-ndjson"],
        ["application/x-www-form-urlencoded", "the body is application/x-www-form-urlencoded; send it as application/x-ndjson"],
        ["application/x-ndjson; charset=latin1", "the body is declared in latin1; JSON is read only in utf-8"]
      ]
      for (const [contentType, reason] of refusals) {
        const refused = yield* send(contentType)
        expect({ status: refused.status, body: refused.body }, String(contentType)).toEqual({
          status: 422,
          body: unreadableBodyAnswer({ reads: "JSON lines", reason, input: "", contentType: contentType ?? null, expected: "application/x-ndjson" })
        })
        expect((yield* exportOf(baseUrl, MOVED)).status).toBe(404)
      }
      for (const contentType of ["application/jsonl", "application/json; charset=UTF-8"]) {
        const user = `${MOVED}-${contentType.length}`
        const loaded = yield* rawFetch(`${baseUrl}/v1/import?user_id=${user}`, { method: "POST", headers: { ...authHeaders(), "content-type": contentType }, body })
        expect({ contentType, status: loaded.status }).toEqual({ contentType, status: 201 })
      }
    }), { timeout: 120_000 })

  it.scopedLive("memory-service export writes the JSON Lines to stdout; import-user loads the file into another deployment", () =>
    Effect.gen(function*() {
      const stub = yield* providerStub("openai")
      const source = yield* serverOn(stub, "suite")
      const target = yield* serverOn(stub, "other")
      yield* sendJson(`${source.baseUrl}/v1/memories`, { user_id: SOURCE, infer: false, async_mode: false, messages: [{ content: "I keep bees on the roof." }] })
      const cli = (baseUrl: string, args: ReadonlyArray<string>) => runCli(args, { env: { SERVICE_API_URL: baseUrl, SERVICE_API_KEY: API_KEY }, timeoutMs: 60_000 })

      const exported = yield* cli(source.baseUrl, ["export", "--user", SOURCE, "--vectors"])
      expect({ code: exported.code, stderr: exported.stderr }).toEqual({ code: 0, stderr: "" })
      const undated = (text: string) => text.replace(/"exported_at":"[^"]*"/, `"exported_at":"<when>"`)
      expect(undated(exported.stdout)).toBe(undated((yield* exportOf(source.baseUrl, SOURCE)).text))
      const file = NodePath.join(tempDataRoot(), "user.jsonl")
      NodeFs.writeFileSync(file, exported.stdout)

      const loaded = yield* cli(target.baseUrl, ["import-user", file, "--user", MOVED, "--json"])
      expect({ code: loaded.code, stderr: loaded.stderr }).toEqual({ code: 0, stderr: "" })
      expect(JSON.parse(loaded.stdout)).toEqual({ user_id: MOVED, source_user_id: SOURCE })
      const search = (yield* sendJson(`${target.baseUrl}/v1/search`, { user_id: MOVED, query: "bees" })).body as { hits: Array<{ content: string }> }
      expect(search.hits.map((hit) => hit.content)).toContain("I keep bees on the roof.")

      const again = yield* cli(target.baseUrl, ["import-user", file, "--user", MOVED])
      expect({ code: again.code, stderr: again.stderr }).toEqual({ code: 1, stderr: expect.stringMatching(/^conflict: user moved-user-8 already has data/) })
      const unknown = yield* cli(source.baseUrl, ["export", "--user", "nobody-here"])
      expect({ code: unknown.code, stdout: unknown.stdout, stderr: unknown.stderr }).toEqual({ code: 1, stdout: "", stderr: expect.stringMatching(/^not_found: /) })
    }), { timeout: 180_000 })

  it.scopedLive("loads into the export's own user without user_id; a body over SERVICE_MAX_IMPORT_BYTES is 413, declared or not", () =>
    Effect.gen(function*() {
      const stub = yield* providerStub("openai")
      const source = yield* serverOn(stub, "suite")
      yield* sendJson(`${source.baseUrl}/v1/memories`, { user_id: SOURCE, infer: false, async_mode: false, messages: [{ content: "I swim at dawn." }] })
      const exported = (yield* exportOf(source.baseUrl, SOURCE, false)).text
      const target = yield* startServer({ ...llmEnv(stub), SERVICE_MAX_IMPORT_BYTES: String(exported.length + 1024) })
      // Blank lines are skipped: the same export, padded past the limit.
      const padded = exported + "\n".repeat(2048)
      const declared = yield* importInto(target.baseUrl, MOVED, padded)
      expect({ status: declared.status, code: (declared.body as Json).code }).toEqual({ status: 413, code: "payload_too_large" })
      const chunked = yield* Effect.promise(() =>
        new Promise<{ readonly status: number | undefined; readonly body: string }>((resolve, reject) => {
          const request = NodeHttp.request(`${target.baseUrl}/v1/import?user_id=${MOVED}`, {
            method: "POST",
            headers: { ...authHeaders(), "content-type": "application/x-ndjson", "transfer-encoding": "chunked" }
          }, (response) => {
            let body = ""
            response.on("data", (chunk: Buffer) => (body += chunk.toString()))
            response.on("end", () => resolve({ status: response.statusCode, body }))
          })
          request.on("error", reject)
          for (let at = 0; at < padded.length; at += 512) request.write(padded.slice(at, at + 512))
          request.end()
        }))
      expect({ status: chunked.status, code: (JSON.parse(chunked.body) as Json).code }).toEqual({ status: 413, code: "payload_too_large" })
      expect((yield* exportOf(target.baseUrl, MOVED)).status).toBe(404)
      const own = yield* rawFetch(`${target.baseUrl}/v1/import`, {
        method: "POST",
        headers: { ...authHeaders(), "content-type": "application/x-ndjson" },
        body: exported
      })
      expect({ status: own.status, body: own.body }).toEqual({ status: 201, body: { user_id: SOURCE, source_user_id: SOURCE } })
    }), { timeout: 120_000 })
})
