import { Reactivity } from "@effect/experimental"
import type { SqlError } from "@effect/sql"
import { Effect } from "effect"
import * as SqliteVec from "sqlite-vec"
import { ControlRows } from "../../transfer/controlRows.js"
import type { RowCounts } from "../../transfer/records.js"
import { makeSqliteClient } from "../client.js"
import { appliedMigration } from "../database.js"
import { StoreRows } from "../transfer/userRows.js"

export type StoreKind = "user" | "control"

export interface Inspection {
  readonly schemaVersion: number
  /** The rows of each table, counted as a migration counts them. */
  readonly rows: RowCounts
}

/**
 * Opens a copied store read-only and reads its schema version and row counts, and with
 * `integrity` what `PRAGMA integrity_check` finds wrong (empty when nothing is).
 */
export const inspectStore = (file: string, kind: StoreKind, options: { readonly integrity: boolean }) =>
  Effect.gen(function*() {
    const sql = yield* makeSqliteClient({ filename: file, readonly: true, extensions: kind === "user" ? [SqliteVec.getLoadablePath()] : [] })
    const schemaVersion = yield* appliedMigration(sql)
    const rows = yield* (kind === "user" ? StoreRows(sql).count : ControlRows(sql).count)
    const problems = options.integrity
      ? (yield* sql<{ readonly integrity_check: string }>`PRAGMA integrity_check`).map((row) => row.integrity_check).filter((line) => line !== "ok")
      : []
    return { inspection: { schemaVersion, rows } satisfies Inspection, problems }
  }).pipe(
    Effect.scoped,
    Effect.provide(Reactivity.layer),
    Effect.mapError((error: SqlError.SqlError) => `${error.message}${error.cause instanceof Error ? ` (${error.cause.message})` : ""}`)
  )
