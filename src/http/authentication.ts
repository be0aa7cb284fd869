import { Headers, HttpServerRequest } from "@effect/platform"
import { Effect, Layer, Option, Redacted } from "effect"
import * as NodeCrypto from "node:crypto"
import { Authentication } from "../api/Authentication.js"
import { Unauthorized } from "../api/errors.js"
import { AppConfig } from "../config/AppConfig.js"
import type { CallerIdentity } from "../domain/actors.js"
import { ApiKeys } from "../services/admin/ApiKeys.js"
import { noteCaller } from "./currentRequest.js"
import { span } from "../util/span.js"

/**
 * The key a request presents: the Bearer token of `Authorization` (scheme matched in any case),
 * else `X-API-Key`; both trimmed. An empty token counts as none.
 */
export const presentedKey = (headers: Headers.Headers): Option.Option<string> => {
  const authorization = Option.getOrElse(Headers.get(headers, "authorization"), () => "")
  const space = authorization.indexOf(" ")
  if (space > 0 && authorization.slice(0, space).toLowerCase() === "bearer") {
    const token = authorization.slice(space + 1).trim()
    if (token !== "") return Option.some(token)
  }
  return Headers.get(headers, "x-api-key").pipe(Option.map((key) => key.trim()), Option.filter((key) => key !== ""))
}

const digest = (text: string) => NodeCrypto.createHash("sha256").update(text, "utf8").digest()

/**
 * Whether a presented key is the expected one, compared in time independent of where they differ
 * (and of their lengths): their digests are compared, the expected one's made once.
 */
const secretMatcher = (expected: string) => {
  const expectedDigest = digest(expected)
  return (presented: string) => NodeCrypto.timingSafeEqual(digest(presented), expectedDigest)
}

const missing = new Unauthorized({ message: "missing API key (Authorization: Bearer <key> or X-API-Key)", details: {} })
const invalid = new Unauthorized({ message: "invalid API key", details: {} })

export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const config = yield* AppConfig
    const keys = yield* ApiKeys
    const isBootstrapKey = Option.map(config.apiKey, (key) => secretMatcher(Redacted.value(key)))
    const identify = Effect.gen(function*() {
      if (config.authDisabled) return { name: "anonymous", keyId: null } satisfies CallerIdentity
      const request = yield* HttpServerRequest.HttpServerRequest
      const presented = presentedKey(request.headers)
      if (Option.isNone(presented)) return yield* missing
      if (Option.isSome(isBootstrapKey) && isBootstrapKey.value(presented.value)) return { name: "bootstrap", keyId: null } satisfies CallerIdentity
      const named = yield* keys.resolve(presented.value)
      return Option.isSome(named) ? named.value : yield* invalid
    })
    const authenticate = identify.pipe(Effect.tap(noteCaller), span("Authentication.authenticate"))
    // Both documented schemes resolve through the one rule above, so their order cannot matter.
    return { bearer: () => authenticate, apiKey: () => authenticate }
  })
)
