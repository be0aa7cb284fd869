import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { WebhookSwitch } from "../../../config/webhooks.js"

/** Whether webhooks are on for the data root, as its control database records. */
export const webhooksOn = (sql: SqlClient.SqlClient) =>
  Effect.map(sql<{ readonly value: string }>`SELECT value FROM settings WHERE name = 'webhooks'`, (rows) => rows[0]?.value === "on")

/** Records what a starting process asks: on or off; a process with neither keeps what it finds. */
export const switchWebhooks = (sql: SqlClient.SqlClient, request: WebhookSwitch) =>
  request === "keep"
    ? Effect.void
    : sql`INSERT INTO settings (name, value) VALUES ('webhooks', ${request})
          ON CONFLICT (name) DO UPDATE SET value = excluded.value`.pipe(Effect.asVoid)
