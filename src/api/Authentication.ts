import { HttpApiMiddleware, HttpApiSecurity } from "@effect/platform"
import { Context, Schema } from "effect"
import type { CallerIdentity } from "../domain/actors.js"
import { StoreUnavailableWire, UnauthorizedWire } from "./errors.js"

/** Who made the request: `bootstrap`, a named key (its name and id), or `anonymous` when auth is off. */
export class Caller extends Context.Tag("Memory/Caller")<Caller, CallerIdentity>() {}

/**
 * The shared API key, sent as `Authorization: Bearer <key>` or `X-API-Key: <key>`.
 * Both schemes resolve through one rule (Bearer first), so a wrong Bearer is never rescued
 * by a right X-API-Key.
 */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Memory/Authentication", {
  // Named keys live in the control plane: while it cannot be reached, a key is neither accepted nor refused.
  failure: Schema.Union(UnauthorizedWire, StoreUnavailableWire),
  provides: Caller,
  security: {
    bearer: HttpApiSecurity.bearer,
    apiKey: HttpApiSecurity.apiKey({ key: "X-API-Key", in: "header" })
  }
}) {}
