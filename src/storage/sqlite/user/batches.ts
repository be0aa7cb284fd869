import { Effect } from "effect"
import { chunks } from "../../transfer/chunks.js"

// SQLite binds at most 32,766 parameters per statement: long row lists and IN lists go in parts.

/** Rows per multi-row INSERT: well under the bound-parameter limit for the widest row. */
const ROWS_PER_INSERT = 200

/** Values per IN list: well under the bound-parameter limit with a statement's other parameters. */
const VALUES_PER_IN_LIST = 10_000

/** Consecutive slices of rows, each one INSERT statement's worth. */
export const insertBatches = <A>(rows: ReadonlyArray<A>) => chunks(rows, ROWS_PER_INSERT)

/** Consecutive slices of values, each one IN list's worth. */
const inListBatches = <A>(values: ReadonlyArray<A>) => chunks(values, VALUES_PER_IN_LIST)

/** Rows of a lookup by many keys, one statement per IN list's worth of them (none for no keys). */
export const inBatches = <K, Row, E>(keys: ReadonlyArray<K>, query: (batch: ReadonlyArray<K>) => Effect.Effect<ReadonlyArray<Row>, E>) =>
  Effect.map(Effect.forEach(inListBatches(keys), query), (parts) => parts.flat())
