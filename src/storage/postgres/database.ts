import { Reactivity } from "@effect/experimental"
import { type SqlClient, SqlError } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Context, Duration, Effect, Layer, Option, Redacted, Runtime } from "effect"
import Pg from "pg"
import { StoreUnavailable } from "../../api/errors.js"
import { StartupError } from "../../startup/StartupError.js"
import { appliedMigration, LATEST_MIGRATION, migrate } from "./migrations.js"
import type { WebhookSwitch } from "../../config/webhooks.js"
import { switchWebhookTrigger } from "./webhookTrigger.js"
import { directStatements } from "./directStatements.js"
import { makePool } from "./pool.js"

/** The PostgreSQL database holding users' data and the control plane, migrated to this build's schema. */
export class PostgresDatabase extends Context.Tag("Memory/PostgresDatabase")<PostgresDatabase, SqlClient.SqlClient>() {}

/**
 * The same database over a pool of its own, for per-user locks held across transactions (a
 * maintenance run, a webhook delivery): each holds a connection while its run waits on a provider
 * or a receiver, which must never leave requests without one.
 */
export class PostgresLockSessions extends Context.Tag("Memory/PostgresLockSessions")<PostgresLockSessions, SqlClient.SqlClient>() {}

const BIGINT_OID = 20

/** bigint columns (identities, counts) as numbers: every one here stays far below 2^53. */
const types: Pg.CustomTypesConfig = {
  getTypeParser: (oid: number, format?: "text" | "binary") =>
    oid === BIGINT_OID ? (value: string) => Number(value) : Pg.types.getTypeParser(oid, format)
}

/** A message about the database with the URL's password, if it shows anywhere, masked. */
export const withoutSecret = (message: string, url: Redacted.Redacted) => {
  const text = Redacted.value(url)
  const password = URL.canParse(text) ? decodeURIComponent(new URL(text).password) : ""
  return password === "" ? message : message.replaceAll(password, "***")
}

/**
 * Connection failures: the server refused, dropped or shut down the connection, none came in time,
 * or a statement was sent on a connection that had already failed.
 */
const CONNECTION_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "08000", "08001", "08003", "08004", "08006", "57P01", "57P02", "57P03"])

const connectionFailed = (cause: unknown) => {
  if (!(cause instanceof Error)) return false
  const code = "code" in cause ? String(cause.code) : ""
  return CONNECTION_CODES.has(code) || /Connection terminated|timeout exceeded when trying to connect|is not queryable/i.test(cause.message)
}

/**
 * A statement that failed because the database could not be reached is `StoreUnavailable` (503):
 * the pool reconnects once it is back. Any other failure is a defect.
 */
export const unavailableOrDefect = (error: SqlError.SqlError) =>
  connectionFailed(error.cause)
    ? Effect.fail(
      new StoreUnavailable({
        message: `the database is unavailable: ${error.cause instanceof Error ? error.cause.message : error.message}; retry shortly`,
        details: { cause: "database_unreachable" }
      })
    )
    : Effect.die(error)

/**
 * A lost connection fails a transaction's ROLLBACK (or COMMIT) as well, which `withTransaction`
 * turns into a defect: taken back as the failure it is, so that it is `StoreUnavailable` too.
 */
const lostConnectionDefect = (defect: unknown) =>
  defect instanceof SqlError.SqlError && connectionFailed(defect.cause) ? Option.some(Effect.fail(defect)) : Option.none()

/**
 * A statement or transaction as the stores run it: to its end once begun, its unreachable
 * database `StoreUnavailable`, any other failure a defect.
 *
 * It is not interrupted midway: @effect/sql-pg answers an interrupted statement with `SELECT
 * pg_cancel_backend(pid)` on another connection of the pool, and PostgreSQL cancels whatever that
 * backend runs when the signal arrives. By then the statement may have ended and its connection
 * gone to the next caller waiting for one (a busy pool), whose statement fails instead
 * (`57014 canceling statement due to user request`, a 500). Interruptions are common enough: a
 * job's lease renewal when its job ends, lexical reads when the embedding call fails, a request
 * whose client went away. The interrupted caller waits for its statements instead (they are
 * short); a transaction then commits or rolls back as it would have.
 */
export const orUnavailable = <A, E, R>(statement: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, SqlError.SqlError> | StoreUnavailable, R> =>
  statement.pipe(
    Effect.catchSomeDefect(lostConnectionDefect),
    Effect.catchIf((error): error is SqlError.SqlError => error instanceof SqlError.SqlError, unavailableOrDefect),
    Effect.uninterruptible
  )

/**
 * The schema a tool that only reads (verify) finds: the newest migration applied, without
 * applying any; 0 for a database this service never set up.
 */
const schemaAsFound = (sql: SqlClient.SqlClient) =>
  sql<{ readonly present: boolean }>`SELECT to_regclass('schema_migrations') IS NOT NULL AS present`.pipe(
    Effect.flatMap((rows) => rows[0]?.present === true ? appliedMigration(sql) : Effect.succeed(0))
  )

const CONNECT_TIMEOUT = Duration.seconds(5)

/**
 * A pool, ended with the scope. An idle connection's error is logged and left to the pool, which
 * drops that connection and opens another on demand.
 */
const openPool = (options: { readonly url: Redacted.Redacted; readonly poolMax: number; readonly prepare: boolean }) =>
  Effect.acquireRelease(
    Effect.map(Effect.runtime<never>(), (runtime) => {
      const pool = makePool({
        connectionString: Redacted.value(options.url),
        max: options.poolMax,
        connectionTimeoutMillis: Duration.toMillis(CONNECT_TIMEOUT),
        application_name: "memory-service",
        types
      }, options.prepare)
      pool.on("error", (error) =>
        Runtime.runFork(runtime)(Effect.logWarning(`an idle PostgreSQL connection failed (${error.message}); the pool opens another when one is needed`)))
      return pool
    }),
    (pool) => Effect.promise(() => pool.end()).pipe(Effect.interruptible, Effect.timeoutOption(1000))
  )

/** The pool, its first connection made (or the database found unreachable within the timeout). */
const acquirePool = (options: { readonly url: Redacted.Redacted; readonly poolMax: number; readonly prepare: boolean }) =>
  openPool(options).pipe(
    Effect.tap((pool) =>
      Effect.tryPromise({ try: () => pool.query("SELECT 1"), catch: (cause) => new SqlError.SqlError({ cause, message: "PgClient: Failed to connect" }) }).pipe(
        Effect.timeoutFail({
          duration: CONNECT_TIMEOUT,
          onTimeout: () => new SqlError.SqlError({ cause: new Error("Connection timed out"), message: "PgClient: Connection timed out" })
        })
      ))
  )

export const postgresDatabase = (options: {
  readonly url: Redacted.Redacted
  readonly poolMax: number
  /** Named prepared statements (default on); off for a pooler that cannot keep them (PgBouncer in transaction mode before 1.21). */
  readonly prepare?: boolean
  readonly webhookSwitch?: WebhookSwitch
  /** Leave the schema as it is (a tool that only reads); refused unless it is this build's. */
  readonly readOnly?: boolean
}) =>
  Layer.scopedContext(
    Effect.gen(function*() {
      const pool = yield* acquirePool({ url: options.url, poolMax: options.poolMax, prepare: options.prepare ?? true })
      const sql = directStatements(yield* PgClient.fromPool({ acquire: Effect.succeed(pool), applicationName: "memory-service", types }), pool)
      // Connections are opened when a lock is first taken, and closed once idle.
      const lockSessions = yield* PgClient.fromPool({
        acquire: openPool({ url: options.url, poolMax: options.poolMax, prepare: false }),
        applicationName: "memory-service",
        types
      })
      const before = options.readOnly === true ? yield* schemaAsFound(sql) : yield* migrate(sql)
      if (options.readOnly === true && before < LATEST_MIGRATION) {
        return yield* new StartupError({
          code: "store_schema_older",
          message: `the database has schema ${before}, older than this build's ${LATEST_MIGRATION}; a service of this build brings it up to date when it starts`,
          details: { found: before, supported: LATEST_MIGRATION }
        })
      }
      if (before > LATEST_MIGRATION) {
        return yield* new StartupError({
          code: "store_schema_newer",
          message: `the database has schema ${before}, newer than this build's ${LATEST_MIGRATION}; run a newer build`,
          details: { found: before, supported: LATEST_MIGRATION }
        })
      }
      // A tool opening the database (a migration between backends) leaves the deployment's setting alone.
      yield* switchWebhookTrigger(sql, options.webhookSwitch ?? "keep")
      return Context.make(PostgresDatabase, sql).pipe(Context.add(PostgresLockSessions, lockSessions))
    }).pipe(
      Effect.catchTag("SqlError", (error) =>
        Effect.fail(
          new StartupError({
            code: "store_unavailable",
            message: withoutSecret(`the database could not be reached or migrated: ${error.message}${error.cause instanceof Error ? ` (${error.cause.message})` : ""}`, options.url),
            details: { variable: "SERVICE_DATABASE_URL" }
          })
        ))
    )
  ).pipe(Layer.provide(Reactivity.layer))
