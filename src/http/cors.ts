import { type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Option } from "effect"

const ALLOWED_METHODS = "DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT"
const DEFAULT_ALLOWED_HEADERS = "authorization, x-api-key, content-type, x-request-id"

export interface CorsPolicy {
  /** The answer to a CORS preflight, given before routing and auth; none for other requests. */
  readonly preflight: (request: HttpServerRequest.HttpServerRequest) => Option.Option<HttpServerResponse.HttpServerResponse>
  /** Headers that let an allowed origin read the response. */
  readonly responseHeaders: (request: HttpServerRequest.HttpServerRequest) => Record<string, string>
}

/**
 * CORS for an exact list of origins (the wildcard exists only while auth is off, which
 * configuration enforces). With no origins configured there is no CORS at all.
 */
export const corsPolicy = (origins: ReadonlyArray<string>): CorsPolicy => {
  const anyOrigin = origins.includes("*")
  const allowedOrigin = (request: HttpServerRequest.HttpServerRequest) =>
    Option.fromNullable(request.headers["origin"]).pipe(
      Option.filter((origin) => origins.length > 0 && (anyOrigin || origins.includes(origin)))
    )
  return {
    preflight: (request) => {
      const origin = request.headers["origin"]
      if (origins.length === 0 || request.method !== "OPTIONS" || origin === undefined) return Option.none()
      if (request.headers["access-control-request-method"] === undefined) return Option.none()
      return Option.some(Option.match(allowedOrigin(request), {
        onNone: () => HttpServerResponse.text("Disallowed CORS origin", { status: 400, headers: { vary: "Origin" } }),
        onSome: (allowed) =>
          HttpServerResponse.text("OK", {
            status: 200,
            headers: {
              "access-control-allow-origin": allowed,
              "access-control-allow-credentials": "true",
              "access-control-allow-methods": ALLOWED_METHODS,
              "access-control-allow-headers": request.headers["access-control-request-headers"] ?? DEFAULT_ALLOWED_HEADERS,
              "access-control-max-age": "600",
              vary: "Origin"
            }
          })
      }))
    },
    responseHeaders: (request) =>
      Option.match(allowedOrigin(request), {
        onNone: () => ({}),
        onSome: (allowed) => ({
          "access-control-allow-origin": allowed,
          "access-control-allow-credentials": "true",
          vary: "Origin"
        })
      })
  }
}
