import { Effect, Layer } from "effect"
import { AppConfig } from "../../../config/AppConfig.js"
import { ControlStore } from "../../ControlStore.js"
import { sqliteFileBytes } from "../files.js"
import { ApiKeyQueries } from "./apiKeys.js"
import { ControlDb, controlDbPath } from "./ControlDb.js"
import { JobQueries } from "./jobs.js"
import { readLockContention } from "./lockContention.js"
import { RequestLogQueries } from "./requestLog.js"
import { webhooksOn } from "./webhookSwitch.js"
import { WebhookQueue } from "../../webhookQueue.js"

/** The control plane in `<data_root>/.control/service_control.db` (ControlDbLive opens it once the data root is locked). */
export const SqliteControlStoreLive = Layer.effect(
  ControlStore,
  Effect.gen(function*() {
    const { dataRoot } = yield* AppConfig
    const controlDb = yield* ControlDb
    return {
      jobs: yield* JobQueries,
      apiKeys: yield* ApiKeyQueries,
      requestLog: yield* RequestLogQueries,
      webhooks: WebhookQueue(controlDb, Effect.orDie),
      lockContention: Effect.provideService(readLockContention, ControlDb, controlDb),
      webhooksOn: Effect.orDie(webhooksOn(controlDb)),
      sizeBytes: Effect.sync(() => sqliteFileBytes(controlDbPath(dataRoot)))
    }
  })
)
