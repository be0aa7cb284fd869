import { Migrator, SqlClient } from "@effect/sql"
import { Data, Effect } from "effect"
import { makeSqliteClient } from "./client.js"

const runMigrations = Migrator.make({})

/** A database written by a newer build: refused rather than misread. */
export class SchemaNewer extends Data.TaggedError("SchemaNewer")<{
  readonly found: number
  readonly supported: number
}> {}

/** The newest migration applied to a database: its schema version (0 before any). */
export const appliedMigration = (client: SqlClient.SqlClient) =>
  client<{ readonly latest: number | null }>`SELECT max(migration_id) AS latest FROM effect_sql_migrations`.pipe(
    Effect.map((rows) => rows[0]?.latest ?? 0),
    Effect.catchTag("SqlError", () => Effect.succeed(0))
  )

/**
 * Opens a SQLite file in WAL mode for the enclosing scope and brings its schema up to date.
 * `synchronous = NORMAL` keeps every committed transaction across a process crash (the WAL is
 * in the OS's hands); only a power cut could lose the last ones, those no checkpoint has synced
 * yet (in a user's store, a second's at most: checkpointer.ts).
 */
export const openMigrated = (options: {
  readonly filename: string
  readonly migrations: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>>
  readonly latest: number
  /** Loadable SQLite extensions, loaded before any migration can need them. */
  readonly extensions?: ReadonlyArray<string>
  /** Run after each transaction on the connection. */
  readonly onTransactionEnd?: Effect.Effect<void>
}) =>
  Effect.gen(function*() {
    const client = yield* makeSqliteClient(options)
    yield* client`PRAGMA busy_timeout = 5000`
    yield* client`PRAGMA synchronous = NORMAL`
    yield* client`PRAGMA foreign_keys = ON`
    const applied = yield* appliedMigration(client)
    if (applied > options.latest) return yield* new SchemaNewer({ found: applied, supported: options.latest })
    // A store with every migration applied (any reopen) skips the migrator and its bookkeeping.
    const newest = Math.max(0, ...Object.keys(options.migrations).map((name) => Number.parseInt(name, 10)))
    if (applied === newest) return client
    yield* runMigrations({ loader: Migrator.fromRecord(options.migrations) }).pipe(Effect.provideService(SqlClient.SqlClient, client))
    return client
  })
