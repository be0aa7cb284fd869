import { Reactivity } from "@effect/experimental"
import { NodeContext } from "@effect/platform-node"
import { Migrator, SqlClient } from "@effect/sql"
import { SqliteClient, SqliteMigrator } from "@effect/sql-sqlite-node"
import { Context, Effect, Layer } from "effect"
import * as NodePath from "node:path"
import { AppConfig } from "../../config/AppConfig.js"
import { DataRootLock } from "../../services/DataRootLock.js"
import { StartupError } from "../../startup/StartupError.js"
import { controlMigrations, LATEST_CONTROL_MIGRATION } from "./migrations.js"

/** The control-plane database: jobs, named keys, request log. Separate from every user store. */
export class ControlDb extends Context.Tag("Memory/ControlDb")<ControlDb, SqlClient.SqlClient>() {}

export const controlDbPath = (dataRoot: string) => NodePath.join(dataRoot, ".control", "service_control.db")

const unavailable = (cause: unknown) =>
  new StartupError({
    code: "control_plane_unavailable",
    message: `the control database could not be opened or migrated: ${String(cause)}`,
    details: {}
  })

const open = Effect.gen(function*() {
  const { dataRoot } = yield* AppConfig
  const client = yield* SqliteClient.make({ filename: controlDbPath(dataRoot) })
  yield* client`PRAGMA busy_timeout = 5000`
  yield* client`PRAGMA synchronous = NORMAL`
  const applied = yield* client<{ readonly latest: number | null }>`
    SELECT max(migration_id) AS latest FROM effect_sql_migrations`.pipe(
    Effect.map((rows) => rows[0]?.latest ?? 0),
    Effect.catchTag("SqlError", () => Effect.succeed(0))
  )
  if (applied > LATEST_CONTROL_MIGRATION) {
    return yield* new StartupError({
      code: "control_schema_newer",
      message: `the control database has schema ${applied}, newer than this build's ${LATEST_CONTROL_MIGRATION}; run a newer build`,
      details: { found: applied, supported: LATEST_CONTROL_MIGRATION }
    })
  }
  yield* SqliteMigrator.run({ loader: Migrator.fromRecord(controlMigrations) }).pipe(
    Effect.provideService(SqliteClient.SqliteClient, client),
    Effect.provideService(SqlClient.SqlClient, client),
    Effect.provide(NodeContext.layer)
  )
  return client as SqlClient.SqlClient
}).pipe(Effect.catchTags({ SqlError: unavailable, MigrationError: unavailable }))

/** Opened only after the data-root lock is held, so one process owns it. */
export const ControlDbLive = Layer.scoped(ControlDb, Effect.zipRight(DataRootLock, open)).pipe(
  Layer.provide(Reactivity.layer)
)
