import { Effect } from "effect"
import { MigrationCountMismatch } from "./errors.js"
import type { RowCounts } from "./records.js"
import type { TransferEnd } from "./TransferEnd.js"

/** Fails on the first table whose counts differ, naming the user (null: the control plane). */
const sameCounts = (userId: string | null, source: RowCounts, target: RowCounts) =>
  Effect.forEach(Object.keys(source), (table) => {
    const [inSource, inTarget] = [source[table] ?? 0, target[table] ?? 0]
    return inSource === inTarget ? Effect.void : Effect.fail(
      new MigrationCountMismatch({
        user_id: userId,
        table,
        source: inSource,
        target: inTarget,
        message: `${userId === null ? "the control plane's" : `user '${userId}':`} ${table} has ${inSource} rows in the source and ${inTarget} in the target`
      })
    )
  }, { discard: true })

const add = (totals: Record<string, number>, counts: RowCounts) => {
  for (const [table, n] of Object.entries(counts)) totals[table] = (totals[table] ?? 0) + n
}

/**
 * Counts each user's rows and the control plane's on both ends, table by table: any difference
 * fails the migration, but for the control plane's rows left behind (`withheld`, by table).
 * Answers the totals.
 */
export const verifyCounts = (source: TransferEnd, target: TransferEnd, users: ReadonlyArray<string>, withheld: RowCounts = {}) =>
  Effect.gen(function*() {
    const rows: Record<string, number> = {}
    for (const userId of users) {
      const counts = yield* source.countUser(userId)
      yield* sameCounts(userId, counts, yield* target.countUser(userId))
      add(rows, counts)
    }
    const control: Record<string, number> = { ...yield* source.countControl }
    for (const [table, n] of Object.entries(withheld)) control[table] = (control[table] ?? 0) - n
    yield* sameCounts(null, control, yield* target.countControl)
    return { rows, control }
  })
