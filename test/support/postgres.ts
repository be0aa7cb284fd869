import { Effect, Layer, Redacted } from "effect"
import { inject } from "vitest"
import { createDatabase } from "../../scripts/postgres/cluster.js"
import { postgresStorage } from "../../src/storage/postgres/PostgresStorage.js"

/** A new, empty database in the tests' cluster; its URL. */
export const freshDatabase = Effect.promise(() => createDatabase(inject("postgresUrl")))

/** Both storage ports on a fresh database; with `webhooks`, audit events fill users' outboxes. */
export const freshPostgresStorage = (options?: { readonly webhooks: boolean }) =>
  Layer.unwrapEffect(Effect.map(freshDatabase, (url) => postgresStorage({ url: Redacted.make(url), poolMax: 5, webhookSwitch: options?.webhooks === true ? "on" : "keep" })))
