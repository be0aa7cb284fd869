import { Reactivity } from "@effect/experimental"
import type { SqlClient } from "@effect/sql"
import { Context, Effect, Layer } from "effect"
import * as NodePath from "node:path"
import { AppConfig } from "../../../config/AppConfig.js"
import { DataRootLock } from "../DataRootLock.js"
import { StartupError } from "../../../startup/StartupError.js"
import { openMigrated } from "../database.js"
import { controlMigrations, LATEST_CONTROL_MIGRATION } from "./migrations.js"
import { switchWebhooks } from "./webhookSwitch.js"

/** The control-plane database: jobs, named keys, request log. Separate from every user store. */
export class ControlDb extends Context.Tag("Memory/ControlDb")<ControlDb, SqlClient.SqlClient>() {}

export const controlDbPath = (dataRoot: string) => NodePath.join(dataRoot, ".control", "service_control.db")

const unavailable = (cause: unknown) =>
  new StartupError({
    code: "control_plane_unavailable",
    message: `the control database could not be opened or migrated: ${String(cause)}`,
    details: {}
  })

/** Opens and migrates a data root's control database for the enclosing scope; the caller holds the data root's lock. */
export const openControlDb = (dataRoot: string) =>
  openMigrated({ filename: controlDbPath(dataRoot), migrations: controlMigrations, latest: LATEST_CONTROL_MIGRATION }).pipe(
    Effect.catchTags({
      SqlError: unavailable,
      MigrationError: unavailable,
      SchemaNewer: ({ found, supported }) =>
        new StartupError({
          code: "control_schema_newer",
          message: `the control database has schema ${found}, newer than this build's ${supported}; run a newer build`,
          details: { found, supported }
        })
    })
  )

/**
 * Opened only after the data-root lock is held, so one process owns it; with the deployment's
 * webhook setting switched as this process asks.
 */
export const ControlDbLive = Layer.scoped(
  ControlDb,
  Effect.zipRight(
    DataRootLock,
    Effect.flatMap(AppConfig, ({ dataRoot, webhookSwitch }) =>
      Effect.tap(openControlDb(dataRoot), (sql) => Effect.mapError(switchWebhooks(sql, webhookSwitch), unavailable)))
  )
).pipe(Layer.provide(Reactivity.layer))
