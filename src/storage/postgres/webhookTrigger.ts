import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Makes the events table fill the webhook outbox in each event's own transaction while webhooks
 * are on, and stop when they are off (an outbox nobody empties would only grow). Replicas of one
 * deployment share the setting; the table is only altered when it changes.
 */
export const syncWebhookTrigger = (sql: SqlClient.SqlClient, webhooks: boolean) =>
  Effect.gen(function*() {
    const present = yield* sql`SELECT 1 FROM pg_trigger WHERE tgname = 'events_webhook_outbox' AND tgrelid = 'events'::regclass`
    if (webhooks && present.length === 0) {
      yield* sql`CREATE OR REPLACE TRIGGER events_webhook_outbox AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION webhook_outbox_fill()`
    } else if (!webhooks && present.length > 0) {
      yield* sql`DROP TRIGGER IF EXISTS events_webhook_outbox ON events`
    }
  })
