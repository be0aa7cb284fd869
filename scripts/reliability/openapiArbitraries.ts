/**
 * JSON Schema → fast-check arbitraries, for the subset the service's OpenAPI document uses:
 * values a schema accepts, and values it refuses (a wrong type, or one past a bound).
 */
import { FastCheck as fc } from "effect"
import { dereference, type JsonSchema, type OpenApiDocument } from "./openapiDocument.js"

export interface SchemaContext {
  readonly document: OpenApiDocument
  /**
   * Values for properties and parameters by name, where the schema alone would rarely give a
   * useful one (a `user_id` the server's allowlist passes, the id of a memory that exists).
   */
  readonly hints: Readonly<Record<string, fc.Arbitrary<unknown>>>
  /** Longest generated array, so that `maxItems: 500` does not mean 500-element bodies. */
  readonly maxArrayLength: number
}

/** `$ref` and `allOf` flattened into one schema (the document wraps a bounded `$ref` in a one-member `allOf`). */
export const normalize = (document: OpenApiDocument, schema: JsonSchema): JsonSchema => {
  const resolved = dereference(document, schema)
  if (resolved.allOf === undefined) return resolved
  const { allOf, ...rest } = resolved
  return allOf.reduce<JsonSchema>((merged, member) => ({ ...normalize(document, member), ...merged }), rest)
}

const typesOf = (schema: JsonSchema): ReadonlyArray<string> => {
  const declared = schema.type === undefined ? [] : typeof schema.type === "string" ? [schema.type] : schema.type
  return schema.nullable === true ? [...declared, "null"] : declared
}

/** Words, so that searches over generated content have something to find. */
const prose = fc.lorem({ maxCount: 12, mode: "words" })

/** Text with no bound: prose, any code points, or graphemes of every script. */
const freeText = (minLength: number) =>
  fc.oneof(
    { weight: 3, arbitrary: prose.filter((text) => text.length >= minLength) },
    { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength, maxLength: 200 }) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", minLength, maxLength: 200 }) }
  )

const stringValue = (schema: JsonSchema) => {
  const minLength = schema.minLength ?? 0
  if (schema.pattern !== undefined) {
    const maxLength = schema.maxLength ?? Number.MAX_SAFE_INTEGER
    return fc.stringMatching(new RegExp(schema.pattern)).filter((text) => text.length >= minLength && text.length <= maxLength)
  }
  // Bounds count UTF-16 units on the server: ASCII keeps a bounded string inside them.
  if (schema.maxLength !== undefined) return fc.string({ minLength, maxLength: schema.maxLength })
  return freeText(minLength)
}

const numberValue = (schema: JsonSchema, integer: boolean) => {
  const min = schema.minimum ?? -1_000_000
  const max = schema.maximum ?? 1_000_000
  const whole = fc.integer({ min: Math.ceil(min), max: Math.floor(max) })
  return integer ? whole : fc.oneof(whole, fc.double({ min, max, noNaN: true, noDefaultInfinity: true }))
}

const ABSENT = Symbol("absent")

/** The value half the time, else `absent` (fc.option's bias would make absence rare). */
export const sometimes = <T, A>(value: fc.Arbitrary<T>, absent: A): fc.Arbitrary<T | A> =>
  fc.tuple(fc.boolean(), value).map(([present, v]) => present ? v : absent)

const objectValue = (context: SchemaContext, schema: JsonSchema): fc.Arbitrary<unknown> => {
  const properties = Object.entries(schema.properties ?? {})
  if (properties.length === 0 && schema.additionalProperties !== undefined && schema.additionalProperties !== false) {
    return fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 })
  }
  const required = new Set(schema.required ?? [])
  // Each optional property present half the time, so that requests without it are common too.
  const entries = properties.map(([name, property]) => {
    const value = context.hints[name] ?? validValue(context, property)
    return (required.has(name) ? value : sometimes(value, ABSENT)).map((v) => [name, v] as const)
  })
  return fc.tuple(...entries).map((pairs) => Object.fromEntries(pairs.filter(([, value]) => value !== ABSENT)))
}

const valueOfType = (context: SchemaContext, schema: JsonSchema, type: string): fc.Arbitrary<unknown> => {
  switch (type) {
    case "null":
      return fc.constant(null)
    case "boolean":
      return fc.boolean()
    case "integer":
      return numberValue(schema, true)
    case "number":
      return numberValue(schema, false)
    case "string":
      return stringValue(schema)
    case "array": {
      const minLength = schema.minItems ?? 0
      const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? context.maxArrayLength, context.maxArrayLength))
      return fc.array(validValue(context, schema.items ?? {}), { minLength, maxLength })
    }
    case "object":
      return objectValue(context, schema)
    default:
      return fc.jsonValue({ maxDepth: 2 })
  }
}

/** Values the schema accepts. */
export const validValue = (context: SchemaContext, schema: JsonSchema): fc.Arbitrary<unknown> => {
  const resolved = normalize(context.document, schema)
  if (resolved.const !== undefined) return fc.constant(resolved.const)
  if (resolved.enum !== undefined) return fc.constantFrom(...resolved.enum)
  const members = resolved.anyOf ?? resolved.oneOf
  if (members !== undefined) return fc.oneof(...members.map((member) => validValue(context, member)))
  const types = typesOf(resolved)
  if (types.length === 0) return fc.jsonValue({ maxDepth: 2 })
  return fc.oneof(...types.map((type) => valueOfType(context, resolved, type)))
}

/** One value of each JSON type (and an integer, a fraction, numeric text), to find those a schema refuses. */
const SAMPLES: ReadonlyArray<unknown> = [42, -1, 1.5, 1e308, true, false, null, "", "text", "42", "true", [], [1, "a"], {}, { a: 1 }]

const jsonTypeOf = (value: unknown) =>
  value === null ? "null" : Array.isArray(value) ? "array" : typeof value === "number" && Number.isInteger(value) ? "integer" : typeof value

/** The JSON types a schema lets through (an integer passes `number`); undefined when it takes any. */
const acceptedTypes = (document: OpenApiDocument, schema: JsonSchema): Set<string> | undefined => {
  const resolved = normalize(document, schema)
  const members = resolved.anyOf ?? resolved.oneOf
  if (members !== undefined) {
    const each = members.map((member) => acceptedTypes(document, member))
    return each.some((types) => types === undefined) ? undefined : new Set(each.flatMap((types) => [...(types ?? [])]))
  }
  if (resolved.enum !== undefined || resolved.const !== undefined) {
    return new Set([...(resolved.enum ?? [resolved.const])].map(jsonTypeOf).map((type) => type === "integer" ? "number" : type))
  }
  const types = typesOf(resolved)
  return types.length === 0 ? undefined : new Set(types)
}

const refusesType = (accepted: ReadonlySet<string>, value: unknown) => {
  const type = jsonTypeOf(value)
  return !(accepted.has(type) || (type === "integer" && accepted.has("number")))
}

/** The single non-null member of a nullable union, whose bounds apply. */
const boundedMember = (document: OpenApiDocument, schema: JsonSchema): JsonSchema => {
  const resolved = normalize(document, schema)
  const members = (resolved.anyOf ?? resolved.oneOf ?? []).filter((member) => normalize(document, member).type !== "null")
  return members.length === 1 && members[0] !== undefined ? boundedMember(document, members[0]) : resolved
}

/** Values just past each bound the schema declares. */
const pastBounds = (context: SchemaContext, schema: JsonSchema): Array<fc.Arbitrary<unknown>> => {
  const s = boundedMember(context.document, schema)
  const out: Array<fc.Arbitrary<unknown>> = []
  if ((s.minLength ?? 0) > 0) out.push(fc.constant("x".repeat((s.minLength ?? 1) - 1)))
  if (s.maxLength !== undefined) out.push(fc.constant("x".repeat(s.maxLength + 1)))
  if (s.minimum !== undefined) out.push(fc.constant(s.minimum - 1), fc.constant(s.minimum - 0.5))
  if (s.maximum !== undefined) out.push(fc.constant(s.maximum + 1), fc.constant(s.maximum + 0.5))
  if (s.type === "integer") out.push(fc.constant(1.5))
  if (s.enum !== undefined) out.push(fc.constant(`not-${String(s.enum[0])}`))
  if (s.pattern !== undefined) out.push(fc.constant("not a match"))
  if ((s.minItems ?? 0) > 0) out.push(fc.constant([]))
  if (s.maxItems !== undefined && s.items !== undefined) {
    out.push(fc.array(validValue(context, s.items), { minLength: s.maxItems + 1, maxLength: s.maxItems + 1 }))
  }
  if ((s.required ?? []).length > 0) out.push(fc.constant({}))
  return out
}

/** Values the schema refuses; undefined when it accepts anything. */
export const invalidValue = (context: SchemaContext, schema: JsonSchema): fc.Arbitrary<unknown> | undefined => {
  const accepted = acceptedTypes(context.document, schema)
  const wrongTypes = accepted === undefined ? [] : SAMPLES.filter((sample) => refusesType(accepted, sample))
  const options = [...pastBounds(context, schema), ...(wrongTypes.length > 0 ? [fc.constantFrom(...wrongTypes)] : [])]
  return options.length === 0 ? undefined : fc.oneof(...options)
}
