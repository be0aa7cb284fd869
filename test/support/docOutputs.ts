/**
 * Compares what a documented command printed with the output the document shows. Generated ids,
 * times and scores differ from run to run and between backends: they are matched by shape, not
 * value. `…` stands for what the document leaves out (see docBlocks.ts).
 */
import type { ShownOutput } from "./docBlocks.js"

export const ELIDED = "…"

/** Values that differ from run to run, each replaced by a placeholder naming its shape. */
const SHAPES: ReadonlyArray<readonly [RegExp, string]> = [
  [/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?/g, "<time>"],
  [/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uuid>"],
  [/(?<![0-9A-Za-z])[0-9a-f]{16,}(?![0-9A-Za-z])/g, "<hex>"],
  [/\bsm_[0-9A-Za-z_-]{20,}/g, "<api key>"],
  [/\bsm_[0-9A-Za-z_-]{6}(?![0-9A-Za-z_-])/g, "<key prefix>"]
]

/** Numbers that measure rather than count: matched as any number. */
const MEASURED_KEY = /score|bytes|_ms$|^ms$|^(min|max|p50|p95|p99)$|latency/

export const shapeOf = (text: string): string => SHAPES.reduce((acc, [pattern, name]) => acc.replace(pattern, name), text)

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * The actual value as the document would show it: every part the shown value elides, or that
 * matches it by shape, takes the shown value's form. Comparing the result with the shown value
 * then fails only on a real difference, and the assertion's diff points at it.
 */
export const projectJson = (shown: unknown, actual: unknown, key = ""): unknown => {
  if (shown === ELIDED) return ELIDED
  if (typeof shown === "string" && typeof actual === "string") return shapeOf(shown) === shapeOf(actual) ? shown : actual
  if (typeof shown === "number" && typeof actual === "number") return MEASURED_KEY.test(key) ? shown : actual
  if (Array.isArray(shown) && Array.isArray(actual)) {
    const open = shown.length > 0 && shown[shown.length - 1] === ELIDED
    const items = open ? shown.slice(0, -1) : shown
    if (open && actual.length < items.length) return actual
    const head = actual.slice(0, open ? items.length : actual.length).map((item, i) => i < items.length ? projectJson(items[i], item, key) : item)
    return open ? [...head, ELIDED] : head
  }
  if (isRecord(shown) && isRecord(actual)) {
    const open = ELIDED in shown
    const projected: Record<string, unknown> = open ? { [ELIDED]: shown[ELIDED] } : {}
    for (const [name, value] of Object.entries(actual)) {
      if (name in shown) projected[name] = projectJson(shown[name], value, name)
      else if (!open) projected[name] = value
    }
    return projected
  }
  return actual
}

/** Text shown and printed, compared line by line after shapes are replaced; a line `…` takes any lines. */
export const projectText = (shown: string, actual: string): string => {
  const shownLines = shapeOf(shown.trimEnd()).split("\n")
  const actualShape = shapeOf(actual.trimEnd())
  const pattern = shownLines
    .map((line) => line === ELIDED ? "[\\s\\S]*?" : line.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("\\n")
  return new RegExp(`^${pattern}$`).test(actualShape) ? shown.trimEnd() : actual.trimEnd()
}

/**
 * The JSON values of a text, one after another, as jq prints them (a document may show several
 * for one block): split where a top-level value ends.
 */
export const jsonValues = (text: string): Array<unknown> => {
  const values: Array<unknown> = []
  let depth = 0
  let inString = false
  let start = -1
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!
    if (inString) {
      if (char === "\\") i++
      else if (char === '"') inString = false
    } else if (char === '"') inString = true
    else if (char === "{" || char === "[") depth++
    else if (char === "}" || char === "]") depth--
    if (start < 0 && char.trim() !== "") start = i
    const atEnd = i + 1 === text.length || (depth === 0 && !inString && /\s/.test(text[i + 1]!))
    if (start >= 0 && depth === 0 && !inString && atEnd) {
      values.push(JSON.parse(text.slice(start, i + 1)))
      start = -1
    }
  }
  return values
}

/** Both sides of the comparison, ready for `expect(printed).toEqual(shown)`. */
export const compareOutput = (output: ShownOutput, printed: string): { readonly printed: unknown; readonly shown: unknown } => {
  if (output.language === "text") return { printed: projectText(output.text, printed), shown: output.text.trimEnd() }
  const shown = jsonValues(output.text)
  let actual: Array<unknown>
  try {
    actual = jsonValues(printed)
  } catch {
    return { printed, shown }
  }
  return { printed: projectJson(shown, actual), shown }
}
