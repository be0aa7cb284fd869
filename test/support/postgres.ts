import { Effect, Layer, Redacted } from "effect"
import * as NodeCrypto from "node:crypto"
import Pg from "pg"
import { inject } from "vitest"
import { postgresStorage } from "../../src/storage/postgres/PostgresStorage.js"

/** A new, empty database in the tests' cluster; its URL. */
export const freshDatabase = Effect.promise(async () => {
  const admin = new Pg.Client({ connectionString: inject("postgresUrl") })
  const name = `test_${NodeCrypto.randomUUID().replaceAll("-", "")}`
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE ${name}`)
  } finally {
    await admin.end()
  }
  const url = new URL(inject("postgresUrl"))
  url.pathname = `/${name}`
  return url.toString()
})

/** Both storage ports on a fresh database. */
export const freshPostgresStorage = () =>
  Layer.unwrapEffect(Effect.map(freshDatabase, (url) => postgresStorage({ url: Redacted.make(url), poolMax: 5 })))
