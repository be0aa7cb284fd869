/** Rows per multi-row INSERT: well under SQLite's bound-parameter limit for the widest row. */
const ROWS_PER_INSERT = 200

/** Consecutive slices of at most ROWS_PER_INSERT rows, each one INSERT statement's worth. */
export const insertBatches = <A>(rows: ReadonlyArray<A>): ReadonlyArray<ReadonlyArray<A>> =>
  Array.from({ length: Math.ceil(rows.length / ROWS_PER_INSERT) }, (_, i) => rows.slice(i * ROWS_PER_INSERT, (i + 1) * ROWS_PER_INSERT))
