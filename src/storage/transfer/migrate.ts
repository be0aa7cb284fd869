import { Effect } from "effect"
import { unmatched, controlConflict, userState } from "./compare.js"
import { MigrationConflict, MigrationUnstorableText } from "./errors.js"
import { type ControlSnapshot, type ControlTable, type RowCounts } from "./records.js"
import type { TransferEnd } from "./TransferEnd.js"
import { describeUnstorable, storableRows, type UnstorableRow, unstorableControlRows, unstorableUserRows } from "./unstorable.js"
import { verifyCounts } from "./verify.js"

export interface MigrationProgress {
  readonly done: number
  readonly total: number
  /** The user being copied; null once all are done. */
  readonly current: string | null
}

export interface MigrationSummary {
  readonly source: string
  readonly target: string
  readonly users: { readonly total: number; readonly copied: number; readonly recopied: number; readonly skipped: number }
  /** Rows of each control-plane table appended, and those the target already held. */
  readonly control: Readonly<Record<ControlTable, { readonly copied: number; readonly skipped: number }>>
  /** Rows on both ends after the copy, verified: users' tables summed over users, and the control plane's. */
  readonly rows: RowCounts
  readonly control_rows: RowCounts
}

const conflict = (userId: string | null, table: string, target: TransferEnd) =>
  new MigrationConflict({
    user_id: userId,
    table,
    message: `${target.label} already holds other data ${userId === null ? "in its control plane" : `for user '${userId}'`} (table ${table}); ` +
      "nothing of it was overwritten: remove it from the target or migrate into an empty one"
  })

/**
 * Copies one user unless the target already holds all of it; what was done. A user holding
 * text no store keeps as it is stays behind whole (its rows refer to each other), with those rows.
 */
const copyUser = (source: TransferEnd, target: TransferEnd, userId: string) =>
  Effect.gen(function*() {
    const wanted = yield* source.readUser(userId)
    if (wanted === undefined) return "skipped" as const
    const unstorable = unstorableUserRows(wanted)
    if (unstorable.length > 0) return unstorable
    const state = userState(wanted, yield* target.readUser(userId))
    switch (state._tag) {
      case "complete":
        return "skipped" as const
      case "conflict":
        return yield* conflict(userId, state.table, target)
      case "absent":
      case "partial":
        yield* target.replaceUser(wanted)
        return state._tag === "absent" ? "copied" as const : "recopied" as const
    }
  })

/**
 * Appends the control-plane rows the target lacks, unless it holds rows the source does not have.
 * Its rows stand alone: one holding text no store keeps as it is stays behind by itself.
 */
const copyControl = (source: TransferEnd, target: TransferEnd) =>
  Effect.gen(function*() {
    const [all, present] = [yield* source.readControl, yield* target.readControl]
    const unstorable = unstorableControlRows(all)
    const wanted: ControlSnapshot = { jobs: storableRows(all.jobs), api_keys: storableRows(all.api_keys), request_log: storableRows(all.request_log) }
    const table = controlConflict(wanted, present)
    if (table !== undefined) return yield* conflict(null, table, target)
    const rows: ControlSnapshot = {
      jobs: unmatched(wanted.jobs, present.jobs),
      api_keys: unmatched(wanted.api_keys, present.api_keys),
      request_log: unmatched(wanted.request_log, present.request_log)
    }
    yield* target.appendControl(rows)
    const outcome = (name: ControlTable) => ({ copied: rows[name].length, skipped: wanted[name].length - rows[name].length })
    const summary = { jobs: outcome("jobs"), api_keys: outcome("api_keys"), request_log: outcome("request_log") } satisfies MigrationSummary["control"]
    return { summary, unstorable }
  })

/** Rows left behind, by table. */
const countByTable = (rows: ReadonlyArray<UnstorableRow>) => {
  const counts: Record<string, number> = {}
  for (const row of rows) counts[row.table] = (counts[row.table] ?? 0) + 1
  return counts
}

const leftBehind = (rows: ReadonlyArray<UnstorableRow>, usersDone: number) =>
  new MigrationUnstorableText({
    rows,
    message: `${rows.length} rows hold text no store keeps as it is (NUL, or a lone surrogate) and were not copied, ` +
      `with the rest of their users' data; everything else was copied and verified (${usersDone} users now on the target). ` +
      `Correct or remove these rows at the source, then run the migration again:\n${rows.map(describeUnstorable).join("\n")}`
  })

/**
 * Copies every user of the source, one transaction each, then the control plane, then verifies
 * the row counts of both ends. Resumable: a user the target holds completely is skipped, one it
 * holds in part (only rows the source has too) is copied again; a target holding anything else
 * is refused before it is touched. Rows holding text no store keeps as it is are left behind
 * (a user's with the whole user) and named in the failure that ends the run, once the rest is copied.
 */
export const migrate = (source: TransferEnd, target: TransferEnd, onProgress: (progress: MigrationProgress) => Effect.Effect<void>) =>
  Effect.gen(function*() {
    const users = yield* source.users
    const outcomes = { copied: 0, recopied: 0, skipped: 0 }
    const usersDone: Array<string> = []
    const unstorable: Array<UnstorableRow> = []
    for (const [done, userId] of users.entries()) {
      yield* onProgress({ done, total: users.length, current: userId })
      const outcome = yield* copyUser(source, target, userId)
      if (typeof outcome === "string") {
        outcomes[outcome]++
        usersDone.push(userId)
      } else {
        unstorable.push(...outcome)
      }
    }
    yield* onProgress({ done: users.length, total: users.length, current: null })
    const { summary: control, unstorable: unstorableControl } = yield* copyControl(source, target)
    unstorable.push(...unstorableControl)
    const verified = yield* verifyCounts(source, target, usersDone, countByTable(unstorableControl))
    if (unstorable.length > 0) return yield* leftBehind(unstorable, usersDone.length)
    return {
      source: source.label,
      target: target.label,
      users: { total: users.length, ...outcomes },
      control,
      rows: verified.rows,
      control_rows: verified.control
    } satisfies MigrationSummary
  })
