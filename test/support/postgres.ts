import { Effect, Layer, Redacted } from "effect"
import { inject } from "vitest"
import { createDatabase } from "../../scripts/postgres/cluster.js"
import { postgresStorage } from "../../src/storage/postgres/PostgresStorage.js"

/** A new, empty database in the tests' cluster; its URL. */
export const freshDatabase = Effect.promise(() => createDatabase(inject("postgresUrl")))

/** Both storage ports on a fresh database. */
export const freshPostgresStorage = () =>
  Layer.unwrapEffect(Effect.map(freshDatabase, (url) => postgresStorage({ url: Redacted.make(url), poolMax: 5 })))
