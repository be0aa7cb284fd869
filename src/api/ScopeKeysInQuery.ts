import { HttpApiMiddleware } from "@effect/platform"
import { NotImplementedWire } from "./errors.js"

/**
 * Refuses (501) a scope key in the query string of a route that does not take it there: every
 * scope key is either honoured or refused, never ignored as an unknown parameter would be.
 * Listed before `Authentication` in a group, so that a request is authenticated first.
 */
export class ScopeKeysInQuery extends HttpApiMiddleware.Tag<ScopeKeysInQuery>()("Memory/ScopeKeysInQuery", {
  failure: NotImplementedWire
}) {}
