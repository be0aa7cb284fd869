import { Effect, type Redacted } from "effect"
import { POSTGRES_SCHEMA_VERSION, postgresTransferEnd } from "../postgres/transfer/PostgresTransferEnd.js"
import type { RowCounts } from "./records.js"

export interface DatabaseInspection {
  readonly database: string
  readonly schema_version: number
  readonly users: ReadonlyArray<{ readonly user_id: string; readonly rows: RowCounts }>
  readonly control: RowCounts
}

/**
 * A PostgreSQL deployment's schema version and the rows of each user and of the control plane,
 * counted as a migration counts them, without changing the database: what to compare after a
 * `pg_restore`.
 */
export const inspectPostgres = (url: Redacted.Redacted) =>
  Effect.scoped(Effect.gen(function*() {
    const end = yield* postgresTransferEnd(url, { readOnly: true })
    const users = yield* Effect.forEach(yield* end.users, (userId) => Effect.map(end.countUser(userId), (rows) => ({ user_id: userId, rows })))
    return { database: end.label, schema_version: POSTGRES_SCHEMA_VERSION, users, control: yield* end.countControl } satisfies DatabaseInspection
  }))
