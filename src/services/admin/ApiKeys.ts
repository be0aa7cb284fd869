import { Clock, Effect, Option } from "effect"
import * as NodeCrypto from "node:crypto"
import { ApiKeySummary, CreatedApiKey } from "../../api/AdminApi.js"
import { ControlStore } from "../../storage/ControlStore.js"
import type { CallerIdentity } from "../../domain/actors.js"
import type { ApiKeyRow } from "../../domain/records.js"
import { utcTimestamp } from "../../util/timestamps.js"
import { span } from "../../util/span.js"

const KEY_PREFIX = "sm_"
const SHOWN_PREFIX_LENGTH = 9
const TOUCH_INTERVAL_MS = 60_000

export const sha256Hex = (text: string) => NodeCrypto.createHash("sha256").update(text, "utf8").digest("hex")

const summary = (row: ApiKeyRow) => new ApiKeySummary({ ...row, revoked: row.revoked_at !== null })

/** Named keys: minted once in plaintext, stored only as SHA-256, revoked but never deleted. */
export class ApiKeys extends Effect.Service<ApiKeys>()("Memory/ApiKeys", {
  effect: Effect.gen(function*() {
    const queries = (yield* ControlStore).apiKeys

    const mint = (name: string) =>
      Effect.gen(function*() {
        const plaintext = KEY_PREFIX + NodeCrypto.randomBytes(32).toString("base64url")
        const row: ApiKeyRow = {
          id: NodeCrypto.randomUUID().replaceAll("-", ""),
          name,
          prefix: plaintext.slice(0, SHOWN_PREFIX_LENGTH),
          created_at: utcTimestamp(yield* Clock.currentTimeMillis),
          last_used_at: null,
          revoked_at: null
        }
        yield* queries.insert({ ...row, key_hash: sha256Hex(plaintext) })
        return new CreatedApiKey({
          key: summary(row),
          api_key: plaintext,
          warning: "This is the only time the plaintext is returned. If lost, revoke this key and create another."
        })
      }).pipe(span("ApiKeys.mint"))

    const list = (includeRevoked: boolean) =>
      Effect.map(queries.list(includeRevoked), (rows) => rows.map(summary)).pipe(span("ApiKeys.list"))

    const revoke = (id: string) =>
      Effect.gen(function*() {
        const row = yield* queries.revoke(id, utcTimestamp(yield* Clock.currentTimeMillis))
        return Option.map(Option.fromNullable(row), summary)
      }).pipe(span("ApiKeys.revoke"))

    /** The live named key whose plaintext this is, if any, as the caller it identifies. */
    const resolve = (plaintext: string) =>
      Effect.gen(function*() {
        const row = yield* queries.findActiveByHash(sha256Hex(plaintext))
        if (row === undefined) return Option.none<CallerIdentity>()
        const now = yield* Clock.currentTimeMillis
        yield* queries.touch(row.id, utcTimestamp(now), utcTimestamp(now - TOUCH_INTERVAL_MS))
        return Option.some<CallerIdentity>({ name: row.name, keyId: row.id })
      })

    return { mint, list, revoke, resolve, countActive: queries.countActive } as const
  })
}) {}
