import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { WebhookSwitch } from "../../config/webhooks.js"

/**
 * The trigger that makes the events table fill the webhook outbox in each event's own
 * transaction: it exists while webhooks are on for the database, whichever process writes.
 */
export const webhookTriggerPresent = (sql: SqlClient.SqlClient) =>
  Effect.map(
    sql`SELECT 1 FROM pg_trigger WHERE tgname = 'events_webhook_outbox' AND tgrelid = 'events'::regclass`,
    (rows) => rows.length > 0
  )

/**
 * Applies what a starting process asks: a process with webhooks adds the trigger, one started to
 * turn them off removes it (an outbox nobody empties would only grow), and any other leaves it as
 * it is, so that a replica without webhooks never stops the other replicas' deliveries. The table
 * is only altered when the setting changes: altering it waits for, and holds up, every write.
 */
export const switchWebhookTrigger = (sql: SqlClient.SqlClient, request: WebhookSwitch) =>
  Effect.gen(function*() {
    if (request === "keep") return
    const present = yield* webhookTriggerPresent(sql)
    if (request === "on" && !present) {
      yield* sql`CREATE OR REPLACE TRIGGER events_webhook_outbox AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION webhook_outbox_fill()`
    } else if (request === "off" && present) {
      yield* sql`DROP TRIGGER IF EXISTS events_webhook_outbox ON events`
    }
  })
