import type { HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { MethodNotAllowed, NotFound } from "../api/errors.js"
import { errorResponse, validationFailed } from "./errorResponse.js"
import { allowedMethods, matchRoute } from "./routes.js"

/** A request no route took: 404, 405 with the methods the path allows, or 422 for a path parameter that cannot be decoded. */
export const routingError = (request: HttpServerRequest.HttpServerRequest) => {
  const path = new URL(request.url, "http://localhost").pathname
  const method = request.method === "HEAD" ? "GET" : request.method
  const matched = matchRoute(method, path)
  // The route serves this method, yet the router refused the path: it could not decode a parameter.
  if (matched !== undefined && matched.undecodable.length > 0) {
    return Effect.succeed(errorResponse(validationFailed(matched.undecodable.map((name) => ({
      type: "value_error",
      loc: ["path", name],
      msg: "Input should be valid percent-encoded UTF-8",
      input: matched.params[name] ?? null
    })))))
  }
  const allowed = allowedMethods(path)
  return Effect.succeed(
    allowed.length > 0 && matched === undefined
      ? errorResponse(new MethodNotAllowed({ message: "Method Not Allowed", details: {} }), { allow: allowed.join(", ") })
      : errorResponse(new NotFound({ message: "Not Found", details: {} }))
  )
}
