import { HttpServerRequest } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect } from "effect"
import * as NodeHttp from "node:http"
import { handleFailure } from "../src/http/failures.js"
import { authHeaders, rawFetch, startServer } from "./support/server.js"
import { unreadableBodyAnswer } from "./support/mediaTypes.js"

const jsonPost = (body: string, contentType = "application/json") => ({
  method: "POST",
  headers: { ...authHeaders(), "content-type": contentType },
  body
})

const errorsOf = (body: unknown) => (body as { details: { errors: Array<Record<string, unknown>> } }).details.errors

describe("routing errors", () => {
  it.scoped("an unknown route is 404 not_found in the envelope, before auth", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const response = yield* rawFetch(`${baseUrl}/v1/zzz/abc`)
      expect(response.status).toBe(404)
      expect(response.body).toEqual({ code: "not_found", message: "Not Found", details: {} })
    }))

  it.scoped("a known path with another method is 405 method_not_allowed with Allow", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const response = yield* rawFetch(`${baseUrl}/v1/admin/keys`, { method: "PUT" })
      expect(response.status).toBe(405)
      expect(response.body).toEqual({ code: "method_not_allowed", message: "Method Not Allowed", details: {} })
      expect(response.headers.get("allow")).toBe("GET, POST")
      const withoutCors = yield* rawFetch(`${baseUrl}/v1/jobs/abc`, { method: "OPTIONS" })
      expect(withoutCors.status).toBe(405)
      expect(withoutCors.headers.get("allow")).toBe("GET")
    }))
})

describe("undecodable path parameters", () => {
  it.scoped("a parameter that is not valid percent-encoded UTF-8 is 422 at its path location, not 405", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      for (const id of ["%zz", "%ED%A0%80", "%"]) {
        const response = yield* rawFetch(`${baseUrl}/v1/memories/${id}?user_id=u`, { headers: authHeaders() })
        expect(response.status, id).toBe(422)
        expect(errorsOf(response.body)).toEqual([{ type: "value_error", loc: ["path", "memory_id"], msg: "Input should be valid percent-encoded UTF-8", input: id }])
      }
      const otherMethod = yield* rawFetch(`${baseUrl}/v1/jobs/%zz`, { method: "PUT", headers: authHeaders() })
      expect(otherMethod.status).toBe(405)
    }))
})

describe("documented routing choices", () => {
  it.scoped("HEAD is answered like GET, and a trailing slash is served like the path without it", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const head = yield* rawFetch(`${baseUrl}/health`, { method: "HEAD" })
      expect(head.status).toBe(200)
      expect(head.text).toBe("")
      const slashed = yield* rawFetch(`${baseUrl}/v1/admin/config/`, { headers: authHeaders() })
      expect(slashed.status).toBe(200)
      expect(slashed.body).toMatchObject({ workers: 1 })
      // ... so another method there is 405 too, not a 404.
      const otherMethod = yield* rawFetch(`${baseUrl}/v1/admin/keys/`, { method: "PUT", headers: authHeaders() })
      expect(otherMethod.status).toBe(405)
      expect(otherMethod.headers.get("allow")).toBe("GET, POST")
    }))

  it.scoped("a path parameter of any length reaches its route (an evidence id carries the caller's session id)", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const id = "j".repeat(500)
      const response = yield* rawFetch(`${baseUrl}/v1/jobs/${id}`, { headers: authHeaders() })
      expect(response.status).toBe(404)
      expect(response.body).toMatchObject({ code: "not_found", message: `job '${id}' not found` })
    }))
})

describe("validation errors", () => {
  it.scoped("a missing field is 422 validation_error with a pydantic-shaped item", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const response = yield* rawFetch(`${baseUrl}/v1/admin/keys`, jsonPost(JSON.stringify({ label: "x" })))
      expect(response.status).toBe(422)
      expect(response.body).toEqual({
        code: "validation_error",
        message: "request failed schema validation",
        details: { errors: [{ type: "missing", loc: ["body", "name"], msg: "Field required", input: { label: "x" } }] }
      })
    }))

  it.scoped("bounds are reported with their type and ctx", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const short = yield* rawFetch(`${baseUrl}/v1/admin/keys`, jsonPost(JSON.stringify({ name: "" })))
      expect(errorsOf(short.body)).toEqual([{
        type: "string_too_short",
        loc: ["body", "name"],
        msg: "String should have at least 1 character",
        input: "",
        ctx: { min_length: 1 }
      }])
      const long = yield* rawFetch(`${baseUrl}/v1/admin/keys`, jsonPost(JSON.stringify({ name: "n".repeat(65) })))
      expect(errorsOf(long.body)[0]).toMatchObject({ type: "string_too_long", ctx: { max_length: 64 } })
      const wrongType = yield* rawFetch(`${baseUrl}/v1/admin/keys`, jsonPost(JSON.stringify({ name: 42 })))
      expect(errorsOf(wrongType.body)[0]).toMatchObject({ type: "string_type", loc: ["body", "name"], input: 42 })
    }))

  it.scoped("malformed JSON is 422 json_invalid at the offending offset", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const response = yield* rawFetch(`${baseUrl}/v1/admin/keys`, jsonPost("{\"name\": }"))
      expect(response.status).toBe(422)
      const [error] = errorsOf(response.body)
      expect(error).toMatchObject({ type: "json_invalid", msg: "JSON decode error", input: {} })
      expect(error?.loc).toEqual(["body", 9])
      expect(typeof (error?.ctx as { error: unknown }).error).toBe("string")
    }))

  it.scoped("a body that is not an object, or no body at all, is refused with its own type", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const text = yield* rawFetch(`${baseUrl}/v1/admin/keys`, jsonPost("\"name=x\""))
      expect(text.status).toBe(422)
      expect(errorsOf(text.body)).toEqual([{
        type: "model_attributes_type",
        loc: ["body"],
        msg: "Input should be a valid dictionary or object to extract fields from",
        input: "name=x"
      }])
      const empty = yield* rawFetch(`${baseUrl}/v1/admin/keys`, jsonPost(""))
      expect(errorsOf(empty.body)).toEqual([{ type: "missing", loc: ["body"], msg: "Field required", input: null }])
    }))

  it.scoped("a bad query value is reported at its query location", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const response = yield* rawFetch(`${baseUrl}/v1/admin/keys?include_revoked=maybe`, { headers: authHeaders() })
      expect(response.status).toBe(422)
      expect(errorsOf(response.body)).toEqual([{
        type: "bool_parsing",
        loc: ["query", "include_revoked"],
        msg: "Input should be a valid boolean, unable to interpret input",
        input: "maybe"
      }])
    }))

  it.scoped("auth is checked before the body is validated", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const response = yield* rawFetch(`${baseUrl}/v1/admin/keys`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
      expect(response.status).toBe(401)
    }))
})

describe("request media types", () => {
  const KEY_BODY = JSON.stringify({ name: "typed" })
  const post = (body: string, headers: Record<string, string>) =>
    ({ method: "POST", headers: { ...authHeaders(), ...headers }, body })

  it.scoped("JSON is read as application/json or a +json type, with any parameters, in utf-8", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      for (const type of ["application/json", "Application/JSON", "application/json; charset=utf-8", "application/json;charset=\"UTF-8\"", "application/json; v=1", "application/merge-patch+json"]) {
        const response = yield* rawFetch(`${baseUrl}/v1/admin/keys`, post(KEY_BODY, { "content-type": type }))
        expect(response.status, type).toBe(201)
      }
    }))

  it.scoped("any other body is 422 model_attributes_type at body, naming the type it came with", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const cases: ReadonlyArray<readonly [string, string]> = [
        ["text/plain", "the body is text/plain; send it as application/json"],
        ["text/plain;charset=UTF-8", "the body is text/plain; send it as application/json"],
        ["application/x-www-form-urlencoded", "the body is application/x-www-form-urlencoded; send it as application/json"],
        ["application/json; charset=utf-16", "the body is declared in utf-16; JSON is read only in utf-8"],
        ["application/jsonl", "the body is application/jsonl; send it as application/json"]
      ]
      for (const [type, reason] of cases) {
        const response = yield* rawFetch(`${baseUrl}/v1/admin/keys`, post(KEY_BODY, { "content-type": type }))
        expect(response.status, type).toBe(422)
        expect(response.body, type).toEqual(unreadableBodyAnswer({ reads: "a JSON object", reason, input: KEY_BODY, contentType: type, expected: "application/json" }))
      }
      const form = yield* rawFetch(`${baseUrl}/v1/admin/keys`, post("name=typed", { "content-type": "application/x-www-form-urlencoded" }))
      expect(form.status).toBe(422)
      const keys = yield* rawFetch(`${baseUrl}/v1/admin/keys`, { headers: authHeaders() })
      expect(keys.body).toMatchObject({ total: 0 })
    }))

  it.scoped("a body without a Content-Type (a browser's Blob, sent cross-origin without a preflight) is refused", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer({ SERVICE_AUTH_DISABLED: "true" })
      const response = yield* rawFetch(`${baseUrl}/v1/admin/keys`, { method: "POST", body: new TextEncoder().encode(KEY_BODY) })
      expect(response.status).toBe(422)
      expect(errorsOf(response.body)).toEqual([{
        type: "model_attributes_type",
        loc: ["body"],
        msg: "Input should be a JSON object: the body has no Content-Type; send it as application/json",
        input: KEY_BODY,
        ctx: { content_type: null, expected: "application/json" }
      }])
      // No body at all is a missing body, whatever its type.
      const empty = yield* rawFetch(`${baseUrl}/v1/admin/keys`, { method: "POST" })
      expect(errorsOf(empty.body)).toEqual([{ type: "missing", loc: ["body"], msg: "Field required", input: null }])
    }))

  it.scoped("the key is checked before the media type", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const response = yield* rawFetch(`${baseUrl}/v1/admin/keys`, { method: "POST", headers: { "content-type": "text/plain" }, body: KEY_BODY })
      expect(response.status).toBe(401)
    }))
})

describe("bodies the schema decoder never sees", () => {
  it.scoped("JSON nested deeper than 64 levels is 422 json_invalid where it goes too deep, after authentication", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      const deep = "[".repeat(100_000)
      const cases: ReadonlyArray<readonly [string, number]> = [
        [deep, 64],
        [`${deep}${"]".repeat(100_000)}`, 64],
        // The body's object is level 1; the 64th `{"a":` opens level 65.
        [`{"name": ${"{\"a\":".repeat(65)}1${"}".repeat(65)}}`, "{\"name\": ".length + 63 * "{\"a\":".length]
      ]
      for (const [body, offset] of cases) {
        const response = yield* rawFetch(`${baseUrl}/v1/admin/keys`, jsonPost(body))
        expect(response.status).toBe(422)
        const [error] = errorsOf(response.body)
        expect(error).toMatchObject({ type: "json_invalid", msg: "JSON decode error", ctx: { error: `JSON nested deeper than 64 levels at position ${offset}` } })
        expect(error?.loc).toEqual(["body", offset])
      }
      const shallow = yield* rawFetch(`${baseUrl}/v1/admin/keys`, jsonPost(`{"name": ${"[".repeat(63)}${"]".repeat(63)}}`))
      expect(errorsOf(shallow.body)[0]).toMatchObject({ type: "string_type", loc: ["body", "name"] })
      const anonymous = yield* rawFetch(`${baseUrl}/v1/admin/keys`, { method: "POST", headers: { "content-type": "application/json" }, body: deep })
      expect(anonymous.status).toBe(401)
    }))

  it.scoped("a multipart body is refused as not JSON (422), or as too large (413)", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer({ SERVICE_MAX_BODY_BYTES: "4096" })
      const form = new FormData()
      form.append("name", "k")
      const fields = yield* rawFetch(`${baseUrl}/v1/admin/keys`, { method: "POST", headers: authHeaders(), body: form })
      expect(fields.status).toBe(422)
      expect(errorsOf(fields.body)).toMatchObject([{ type: "model_attributes_type", loc: ["body"], ctx: { expected: "application/json" } }])
      const file = yield* rawFetch(`${baseUrl}/v1/admin/keys`, jsonPost(multipartFile(12), `multipart/form-data; boundary=${BOUNDARY}`))
      expect(file.status).toBe(422)
      const tooLarge = yield* rawFetch(`${baseUrl}/v1/admin/keys`, jsonPost(multipartFile(8 * 1024), `multipart/form-data; boundary=${BOUNDARY}`))
      expect(tooLarge.status).toBe(413)
    }))

  it.scoped("a structured +json type is read as JSON, also in its validation errors", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      for (const type of ["application/merge-patch+json", "application/vnd.api+json; charset=utf-8"]) {
        const minted = yield* rawFetch(`${baseUrl}/v1/admin/keys`, jsonPost(JSON.stringify({ name: "plus-json" }), type))
        expect(minted.status, type).toBe(201)
        const refused = yield* rawFetch(`${baseUrl}/v1/admin/keys`, jsonPost(JSON.stringify({ name: 7 }), type))
        expect(refused.status, type).toBe(422)
        expect(errorsOf(refused.body), type).toMatchObject([{ type: "string_type", loc: ["body", "name"] }])
      }
    }))

  it.scoped("a body read as bytes (no JSON, text or form type) that fails validation is answered, not left hanging", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer()
      for (const type of ["application/octet-stream", "application/pdf", "application/xml"]) {
        const response = yield* rawFetch(`${baseUrl}/v1/admin/keys`, { ...jsonPost("{\"name\": \"\"}", type), signal: AbortSignal.timeout(5_000) })
        expect(response.status, type).toBe(422)
        expect((response.body as { code: string }).code).toBe("validation_error")
      }
    }))
})

const BOUNDARY = "b0undary"

/** A multipart body of one file part of `size` bytes. */
const multipartFile = (size: number) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="name"; filename="k.txt"\r\nContent-Type: text/plain\r\n\r\n${"k".repeat(size)}\r\n--${BOUNDARY}--\r\n`

/** Sends a body in chunks with no Content-Length, so the limit can only be enforced while reading. */
const postChunked = (url: string, body: string, contentType = "application/json") =>
  new Promise<{ readonly status: number } | { readonly dropped: string }>((resolve) => {
    const headers = { ...authHeaders(), "content-type": contentType }
    const request = NodeHttp.request(url, { method: "POST", headers }, (response) => {
      response.resume()
      response.on("end", () => resolve({ status: response.statusCode ?? 0 }))
    })
    request.on("error", (error) => resolve({ dropped: error.message }))
    const chunkSize = 1024
    let offset = 0
    const writeNext = () => {
      if (offset >= body.length) return void request.end()
      request.write(body.slice(offset, offset += chunkSize), () => setTimeout(writeNext, 1))
    }
    writeNext()
  })

describe("body size limit", () => {
  it.scoped("a declared body over SERVICE_MAX_BODY_BYTES is 413 payload_too_large, and its connection closes", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer({ SERVICE_MAX_BODY_BYTES: "4096" })
      const response = yield* rawFetch(`${baseUrl}/v1/admin/keys`, jsonPost(JSON.stringify({ name: "n", pad: "x".repeat(5000) })))
      expect(response.status).toBe(413)
      expect(response.headers.get("connection")).toBe("close")
      expect(response.body).toEqual({ code: "payload_too_large", message: "request body exceeds 4096 bytes", details: { max_bytes: 4096 } })
    }))

  it.scoped("an undeclared (chunked) body is cut off at the limit and its connection closed", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* startServer({ SERVICE_MAX_BODY_BYTES: "4096" })
      const outcome = yield* Effect.promise(() => postChunked(`${baseUrl}/v1/admin/keys`, "x".repeat(64 * 1024)))
      expect(outcome).toHaveProperty("dropped")
      const keys = yield* rawFetch(`${baseUrl}/v1/admin/keys`, { headers: authHeaders() })
      expect(keys.status).toBe(200)
      expect(keys.body).toMatchObject({ total: 0 })
    }))
})

describe("defects", () => {
  it.effect("become a 500 internal_error envelope that reveals nothing of the failure", () =>
    Effect.gen(function*() {
      const request = HttpServerRequest.fromWeb(new Request("http://localhost/v1/admin/config"))
      const response = yield* handleFailure(1024)(Cause.die(new Error("secret-internals at /srv/data"))).pipe(
        Effect.provideService(HttpServerRequest.HttpServerRequest, request)
      )
      expect(response.status).toBe(500)
      const body = JSON.stringify(response)
      expect(body).toContain("internal_error")
      expect(body).not.toContain("secret-internals")
    }))
})
