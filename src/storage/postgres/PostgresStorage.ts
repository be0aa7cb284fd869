import { Layer, type Redacted } from "effect"
import { PostgresControlStoreLive } from "./control/PostgresControlStore.js"
import { postgresDatabase } from "./database.js"
import { postgresUserStore } from "./user/PostgresUserStore.js"

/**
 * Both storage ports on a PostgreSQL database (with pgvector): users' data and the control plane
 * in one database that any number of service processes share.
 */
export const postgresStorage = (options: { readonly url: Redacted.Redacted; readonly poolMax: number; readonly webhooks?: boolean }) =>
  Layer.merge(postgresUserStore(options.webhooks ?? false), PostgresControlStoreLive).pipe(
    Layer.provide(postgresDatabase({ ...options, webhooks: options.webhooks ?? false }))
  )
