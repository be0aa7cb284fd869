import { HttpServerRequest } from "@effect/platform"
import { Effect, Layer, Option, type Schema, SchemaAST } from "effect"
import { NotImplemented } from "../api/errors.js"
import { ScopeKeysInQuery } from "../api/ScopeKeysInQuery.js"
import { SCOPE_KEYS } from "../domain/records.js"
import { matchRoute } from "./routes.js"

/** The keys an input of a route declares. */
const declaredKeys = (schema: Option.Option<Schema.Schema.All>): ReadonlySet<PropertyKey> =>
  new Set(Option.match(schema, {
    onNone: () => [],
    onSome: (input) => SchemaAST.getPropertySignatures(SchemaAST.encodedAST(input.ast)).map((property) => property.name)
  }))

export const ScopeKeysInQueryLive = Layer.succeed(
  ScopeKeysInQuery,
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const url = new URL(request.url, "http://localhost")
    // A method no route serves here (HEAD on a GET route) is answered 405 by the routing errors.
    const matched = matchRoute(request.method, url.pathname)
    if (matched === undefined) return
    const inputs = matched.route.inputs
    const inQuery = declaredKeys(inputs.query)
    const refused = SCOPE_KEYS.filter((key) => url.searchParams.has(key) && !inQuery.has(key))
    if (refused.length === 0) return
    const inBody = declaredKeys(inputs.body)
    const where = refused.every((key) => inBody.has(key))
      ? "this route takes them in its JSON body"
      : "this route acts on no single scope"
    return yield* new NotImplemented({ message: `${refused.join(", ")} cannot be given in the query string: ${where}`, details: { scope_keys: refused } })
  })
)
