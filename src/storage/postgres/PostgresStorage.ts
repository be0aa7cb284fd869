import { Layer, type Redacted } from "effect"
import type { WebhookSwitch } from "../../config/webhooks.js"
import { PostgresControlStoreLive } from "./control/PostgresControlStore.js"
import { postgresDatabase } from "./database.js"
import { postgresUserStore } from "./user/PostgresUserStore.js"

/**
 * Both storage ports on a PostgreSQL database (with pgvector): users' data and the control plane
 * in one database that any number of service processes share. `webhookSwitch` is what this process
 * asks of the database's webhook setting ("keep" unless told); "on" means it delivers them too.
 */
export const postgresStorage = (options: {
  readonly url: Redacted.Redacted
  readonly poolMax: number
  readonly prepare?: boolean
  readonly webhookSwitch?: WebhookSwitch
}) => {
  const webhookSwitch = options.webhookSwitch ?? "keep"
  return Layer.merge(postgresUserStore(webhookSwitch === "on"), PostgresControlStoreLive).pipe(
    Layer.provide(postgresDatabase({ ...options, webhookSwitch }))
  )
}
