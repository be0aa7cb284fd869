import { Context, Effect, Layer } from "effect"
import { ControlDb } from "./control/ControlDb.js"
import { webhooksOn } from "./control/webhookSwitch.js"

/**
 * Whether this process's writes fill users' webhook outboxes: while webhooks are on for the data
 * root, even a process without them records its changes, for the next one with them to deliver.
 */
export class OutboxFilling extends Context.Tag("Memory/OutboxFilling")<OutboxFilling, boolean>() {}

export const OutboxFillingLive = Layer.effect(OutboxFilling, Effect.flatMap(ControlDb, (sql) => Effect.orDie(webhooksOn(sql))))
