import { Console, Effect } from "effect"

/** The answer as one JSON line (decoded class instances serialise to their wire fields). */
export const printJson = (value: unknown) => Console.log(JSON.stringify(value))

export const truncate = (text: string, width: number) => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length <= width ? flat : `${flat.slice(0, Math.max(0, width - 1))}…`
}

export type Cell = string | number | boolean | null | undefined

const show = (cell: Cell) => (cell === null || cell === undefined ? "-" : String(cell))

/** Aligned columns; the last column is left ragged so long content does not pad every line. */
export const table = (headers: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<Cell>>): string => {
  const cells = [headers, ...rows.map((row) => row.map(show))]
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? "").length)))
  return cells
    .map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join("  "))
    .join("\n")
}

export const printTable = (headers: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<Cell>>) =>
  Console.log(rows.length === 0 ? "(none)" : table(headers, rows))

/** A page of a listing: its rows, then which of all they are; an empty page says there is nothing (there or at all). */
export const printPage = (
  headers: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<Cell>>,
  page: { readonly offset: number; readonly total: number; readonly noun: string }
) => {
  if (rows.length > 0) return Console.log(`${table(headers, rows)}\n${page.offset + 1}-${page.offset + rows.length} of ${page.total}`)
  return Console.log(page.total === 0 ? `no ${page.noun}` : `no ${page.noun} past the first ${page.offset} (${page.total} in all)`)
}

/** `key: value` lines for one record. */
export const printRecord = (record: Readonly<Record<string, unknown>>) =>
  Console.log(
    Object.entries(record)
      .map(([key, value]) => `${key}: ${typeof value === "object" && value !== null ? JSON.stringify(value) : show(value as Cell)}`)
      .join("\n")
  )

/** Prints JSON or the readable form, as --json asks. */
export const printAs = <A>(asJson: boolean, value: A, readable: (value: A) => Effect.Effect<void>) =>
  asJson ? printJson(value) : readable(value)

export const CONTENT_WIDTH = 80

/** A line on stderr, kept off stdout so piped output stays clean. */
export const note = (line: string) => Effect.sync(() => process.stderr.write(`${line}\n`))
