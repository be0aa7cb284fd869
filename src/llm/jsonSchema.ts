import { JSONSchema, type Schema } from "effect"

// The reply's JSON schema, in the subset every provider's JSON mode accepts.

type Json = Record<string, unknown>

const isJson = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

/** Keywords some providers' strict modes refuse; the bounds are checked when decoding instead. */
const REFUSED_KEYWORDS = new Set([
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "pattern",
  "format"
])
const SCHEMA_MAPS = new Set(["properties", "patternProperties"])
const SCHEMA_LISTS = new Set(["anyOf", "oneOf", "allOf", "prefixItems"])
const SCHEMA_VALUES = new Set(["items", "additionalProperties", "not", "contains"])

const simplify = (node: unknown, defs: Json, expanding: ReadonlyArray<string>): unknown => {
  if (!isJson(node)) return node
  const out: Json = {}
  if (typeof node.$ref === "string") {
    const name = node.$ref.replace(/^#\/\$defs\//, "")
    // A recursive schema cannot be inlined: it is sent unconstrained and still decoded strictly.
    if (!expanding.includes(name) && isJson(defs[name])) Object.assign(out, simplify(defs[name], defs, [...expanding, name]))
  }
  for (const [key, value] of Object.entries(node)) {
    if (key === "$ref" || key === "$defs" || key === "$schema" || REFUSED_KEYWORDS.has(key)) continue
    if (SCHEMA_MAPS.has(key) && isJson(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, simplify(schema, defs, expanding)]))
    } else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) {
      out[key] = value.map((schema) => simplify(schema, defs, expanding))
    } else {
      out[key] = SCHEMA_VALUES.has(key) ? simplify(value, defs, expanding) : value
    }
  }
  if (out.type === "object" || isJson(out.properties)) {
    const properties = isJson(out.properties) ? out.properties : {}
    Object.assign(out, { properties, required: Object.keys(properties), additionalProperties: false })
  }
  return out
}

/** The reply's JSON schema: no `$schema`, references inlined, no bounds, closed objects with every property required. */
export const providerJsonSchema = <A, I>(schema: Schema.Schema<A, I, never>): Json => {
  const document: Json = { ...JSONSchema.make(schema) }
  const simplified = simplify(document, isJson(document.$defs) ? document.$defs : {}, [])
  return isJson(simplified) ? simplified : {}
}
