import { RecentCache } from "../../util/recentCache.js"

/** Makes the object of a row from its values, in its statement's column order. */
export type RowMaker = (values: ReadonlyArray<unknown>) => Record<string, unknown>

/**
 * One maker per list of columns, shared by every statement and store that answers it: the rows of
 * all of them then have one shape, which keeps the code that reads them on V8's fast paths. The
 * service's statements have a few dozen lists between them.
 */
const makers = new RecentCache<string, RowMaker>(512)

/**
 * The maker for rows of these columns: an object literal of their names. Built key by key
 * (`row[name] = value`), a row of ten columns took ~0.2 µs of generic property stores, ten times as
 * long as the literal. A name given twice keeps its first place and its last value, and a column
 * named `__proto__` is assigned as better-sqlite3 assigns it (a literal's `__proto__` key, like an
 * assignment, sets the prototype when the value is an object or null, and is ignored otherwise).
 */
export const rowMakerFor = (columns: ReadonlyArray<string>): RowMaker => {
  // No column name holds a NUL: SQLite's names are C strings.
  const key = columns.join("\u0000")
  const known = makers.get(key)
  if (known !== undefined) return known
  // Each name is a JSON string literal, which JavaScript reads as the same string: no name can
  // be anything but a key.
  const literal = new Function("values", `return { ${columns.map((name, i) => `${JSON.stringify(name)}: values[${i}]`).join(", ")} }`)
  const maker: RowMaker = (values) => literal(values)
  makers.set(key, maker)
  return maker
}
