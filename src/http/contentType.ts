import type { HttpServerRequest } from "@effect/platform"

// The structured `+json` types (RFC 6839): merge-patch+json, vnd.api+json, …
const PLUS_JSON = /^application\/[a-z0-9!#$&^_.-]+\+json\s*(?:;|$)/

const declaredType = (request: HttpServerRequest.HttpServerRequest) => request.headers["content-type"]?.toLowerCase().trim()

/** The body's Content-Type as the API decodes it: lower case, JSON when absent, a `+json` type as JSON. */
export const bodyContentType = (request: HttpServerRequest.HttpServerRequest) => {
  const declared = declaredType(request)
  return declared === undefined || PLUS_JSON.test(declared) ? "application/json" : declared
}

/**
 * The request with a `+json` Content-Type shown as `application/json`, so that the API's body
 * decoding, which knows only the latter, reads it as JSON rather than as bytes. Its body is the
 * request's own, read and cached once: a failure's answer reads it again from the request.
 */
export const plusJsonAsJson = (request: HttpServerRequest.HttpServerRequest): HttpServerRequest.HttpServerRequest => {
  const declared = declaredType(request)
  if (declared === undefined || !PLUS_JSON.test(declared)) return request
  const headers = { ...request.headers, "content-type": "application/json" }
  return Object.create(request, {
    headers: { get: () => headers },
    text: { get: () => request.text },
    json: { get: () => request.json }
  }) as HttpServerRequest.HttpServerRequest
}
