import type { ControlSnapshot, ControlTable, UserSnapshot, UserTable } from "./records.js"
import { CONTROL_TABLES, USER_TABLES } from "./records.js"
import { float32Bytes } from "./float32.js"

/** A row as one comparable string: its columns in name order, vectors as their float32 bytes. */
const canonical = (row: object) =>
  JSON.stringify(
    Object.entries(row).sort(([a], [b]) => a.localeCompare(b)),
    (_, value: unknown) => value instanceof Float32Array ? Buffer.from(float32Bytes(value)).toString("base64") : value
  )

/** How many times each row occurs. */
const tally = (rows: ReadonlyArray<object>) => {
  const counts = new Map<string, number>()
  for (const row of rows) {
    const key = canonical(row)
    counts.set(key, (counts.get(key) ?? 0) + 1)
  }
  return counts
}

/** The rows of `rows` that `among` does not cover, counting repeats, in their order. */
export const unmatched = <A extends object>(rows: ReadonlyArray<A>, among: ReadonlyArray<object>): ReadonlyArray<A> => {
  const available = tally(among)
  return rows.filter((row) => {
    const key = canonical(row)
    const left = available.get(key) ?? 0
    available.set(key, left - 1)
    return left <= 0
  })
}

/**
 * What the target holds of a user the source has:
 * - `absent`: nothing;
 * - `complete`: the same rows, vectors and vector space (a rerun skips it);
 * - `partial`: only rows the source has too, but not all of them (a copy cut off, or made before
 *   the source went on): copied again;
 * - `conflict`: a row the source does not have, or another vector space: different data, refused.
 */
export type UserState =
  | { readonly _tag: "absent" }
  | { readonly _tag: "complete" }
  | { readonly _tag: "partial" }
  | { readonly _tag: "conflict"; readonly table: UserTable | "users" }

export const userState = (source: UserSnapshot, target: UserSnapshot | undefined): UserState => {
  if (target === undefined) return { _tag: "absent" }
  const sameSpace = JSON.stringify(source.space) === JSON.stringify(target.space)
  if (!sameSpace && target.space !== null) return { _tag: "conflict", table: "users" }
  const conflicting = USER_TABLES.find((table) => unmatched<object>(target.tables[table], source.tables[table]).length > 0)
  if (conflicting !== undefined) return { _tag: "conflict", table: conflicting }
  const complete = sameSpace && USER_TABLES.every((table) => source.tables[table].length === target.tables[table].length)
  return complete ? { _tag: "complete" } : { _tag: "partial" }
}

/** The control-plane table where the target holds a row the source does not, if any. */
export const controlConflict = (source: ControlSnapshot, target: ControlSnapshot): ControlTable | undefined =>
  CONTROL_TABLES.find((table) => unmatched<object>(target[table], source[table]).length > 0)
