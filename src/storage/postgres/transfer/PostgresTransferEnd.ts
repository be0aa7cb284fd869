import type { SqlError } from "@effect/sql"
import { Context, Effect, Layer, Redacted } from "effect"
import type { StartupError } from "../../../startup/StartupError.js"
import { MigrationRefused, MigrationStoreFailed } from "../../transfer/errors.js"
import type { TransferEnd } from "../../transfer/TransferEnd.js"
import { PostgresDatabase, postgresDatabase, withoutSecret } from "../database.js"
import { LATEST_MIGRATION } from "../migrations.js"
import { ControlRows } from "../../transfer/controlRows.js"
import { UserRows } from "./userRows.js"

/** Connections a migration uses: it runs one statement at a time. */
const POOL = 2

/**
 * A PostgreSQL database as one end of a migration, for the enclosing scope, its schema first
 * brought up to date by the adapter's own migrations (with `readOnly`, left as it is and required
 * to be this build's). Its label and messages never hold the password.
 */
export const postgresTransferEnd = (url: Redacted.Redacted, options: { readonly readOnly?: boolean } = {}) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(postgresDatabase({ url, poolMax: POOL, readOnly: options.readOnly === true }))
    const sql = Context.get(context, PostgresDatabase)
    const label = withoutSecret(Redacted.value(url), url)
    const failed = (error: SqlError.SqlError) =>
      new MigrationStoreFailed({ message: withoutSecret(`${label}: ${error.message}${error.cause instanceof Error ? ` (${error.cause.message})` : ""}`, url) })
    const control = ControlRows(sql)
    return {
      label,
      users: Effect.map(sql<{ readonly user_id: string }>`SELECT user_id FROM users ORDER BY user_id`, (rows) => rows.map((row) => row.user_id)).pipe(
        Effect.mapError(failed)
      ),
      readUser: (userId) => UserRows(sql, userId).read.pipe(Effect.mapError(failed)),
      replaceUser: (snapshot) => UserRows(sql, snapshot.userId).replace(snapshot).pipe(Effect.mapError(failed)),
      countUser: (userId) => UserRows(sql, userId).count.pipe(Effect.mapError(failed)),
      readControl: control.read.pipe(Effect.mapError(failed)),
      appendControl: (rows) => control.append(rows).pipe(Effect.mapError(failed)),
      countControl: control.count.pipe(Effect.mapError(failed))
    } satisfies TransferEnd
  }).pipe(Effect.catchTag("StartupError", (error: StartupError) => new MigrationRefused({ code: error.code, message: error.message })))

/** The schema version of a database a read-only end opened: it refuses any other than this build's. */
export const POSTGRES_SCHEMA_VERSION = LATEST_MIGRATION
