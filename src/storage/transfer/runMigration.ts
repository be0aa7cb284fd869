import { Effect, type Redacted } from "effect"
import { postgresTransferEnd } from "../postgres/transfer/PostgresTransferEnd.js"
import { sqliteTransferEnd } from "../sqlite/transfer/SqliteTransferEnd.js"
import { migrate, type MigrationProgress } from "./migrate.js"

export type MigrationDirection = "to_postgres" | "from_postgres"

/**
 * A migration between a data root and a PostgreSQL database, either way. The data root is
 * locked first, so a root a service holds is refused before the database is touched.
 */
export const runMigration = (options: {
  readonly direction: MigrationDirection
  readonly url: Redacted.Redacted
  readonly dataRoot: string
  readonly onProgress: (progress: MigrationProgress) => Effect.Effect<void>
}) =>
  Effect.scoped(Effect.gen(function*() {
    const dataRoot = yield* sqliteTransferEnd(options.dataRoot)
    const database = yield* postgresTransferEnd(options.url)
    return options.direction === "to_postgres"
      ? yield* migrate(dataRoot, database, options.onProgress)
      : yield* migrate(database, dataRoot, options.onProgress)
  }))
