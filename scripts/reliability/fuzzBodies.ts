/** JSON bodies taken apart and put back: their fields by path, a field replaced or removed, forms. */
import { normalize, type SchemaContext } from "./openapiArbitraries.js"
import type { JsonSchema } from "./openapiDocument.js"

export type Key = string | number

/** A field of the body schema, by its path (an array's items at index 0). */
export interface Field {
  readonly path: ReadonlyArray<Key>
  readonly schema: JsonSchema
  readonly required: boolean
}

export const fieldsOf = (context: SchemaContext, schema: JsonSchema, path: ReadonlyArray<Key> = []): Array<Field> => {
  if (path.length > 4) return []
  const resolved = normalize(context.document, schema)
  if (resolved.type === "array" && resolved.items !== undefined) return fieldsOf(context, resolved.items, [...path, 0])
  return Object.entries(resolved.properties ?? {}).flatMap(([name, property]) => [
    { path: [...path, name], schema: property, required: (resolved.required ?? []).includes(name) },
    ...fieldsOf(context, property, [...path, name])
  ])
}

const isContainer = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null

/** A copy of `value` with `path` set (containers made on the way) or, for `undefined`, removed. */
export const setAt = (value: unknown, path: ReadonlyArray<Key>, replacement: unknown): unknown => {
  const [key, ...rest] = path
  if (key === undefined) return replacement
  if (typeof key === "number") {
    const items = Array.isArray(value) ? [...value] : []
    const next = setAt(items[key], rest, replacement)
    if (next === undefined) items.splice(key, 1)
    else items[key] = next
    return items
  }
  // Entries, not assignment: a `__proto__` key must become an own property, not a prototype.
  const entries = Object.entries(isContainer(value) && !Array.isArray(value) ? value : {}).filter(([name]) => name !== key)
  const next = setAt(isContainer(value) ? value[key] : undefined, rest, replacement)
  return Object.fromEntries(next === undefined ? entries : [...entries, [key, next]])
}

/** A JSON body whose value at `path` is raw text (for nesting too deep to build as an object). */
export const spliceText = (json: unknown, path: ReadonlyArray<Key>, text: string) => {
  const marker = "__fuzz_splice_marker__"
  return JSON.stringify(setAt(json, path, marker)).replace(JSON.stringify(marker), text)
}

export const BOUNDARY = "fuzzboundary"

/** The top-level fields of a JSON body as an HTML form would send them. */
export const formBody = (json: unknown, multipart: boolean) => {
  const fields = Object.entries(isContainer(json) ? json : {}).map(([name, value]) =>
    [name, typeof value === "string" ? value : JSON.stringify(value)] as const)
  if (!multipart) return new URLSearchParams(fields.map(([name, value]): [string, string] => [name, value])).toString()
  const parts = fields.map(([name, value]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
  return `${parts.join("")}--${BOUNDARY}--\r\n`
}
