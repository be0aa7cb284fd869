/**
 * Requests for one documented operation: valid ones from its schemas, and each kind of invalid
 * one (a field of the wrong type, missing or extra, a hostile value, a body that is not JSON,
 * odd query strings and path ids, other content types, credentials and methods).
 */
import { FastCheck as fc } from "effect"
import { invalidValue, normalize, type SchemaContext, sometimes, validValue } from "./openapiArbitraries.js"
import { BOUNDARY, type Field, fieldsOf, formBody, type Key, setAt, spliceText } from "./fuzzBodies.js"
import type { Operation, Parameter } from "./openapiDocument.js"
import {
  anyMethod,
  badCredentials,
  contentType,
  deepJsonText,
  encodeText,
  goodCredentials,
  hugeField,
  hugeString,
  loneSurrogate,
  malformedJsonText,
  nulText,
  oddPathId,
  oddQueryValue,
  oddUnicode,
  oddUserId,
  unknownQueryName
} from "./fuzzValues.js"

/** One request, exactly as it goes on the wire. */
export interface RequestCase {
  /** The operation it was generated for (`METHOD /template`). */
  readonly operation: string
  /** What was done to it: `valid`, or the mutation. */
  readonly kind: string
  readonly method: string
  /** Path and query, encoded as sent. */
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string | undefined
  /** Sent without a Content-Length, so its size is only known while reading it. */
  readonly chunked: boolean
}

export interface CaseContext extends SchemaContext {
  readonly apiKey: string
  readonly maxBodyBytes: number
}

type QueryPair = readonly [string, string]
type Body = { readonly json: unknown } | { readonly text: string }

/** A request before assembly: encoded path segments, encoded query pairs, a body. */
interface Parts {
  readonly path: Readonly<Record<string, string>>
  readonly query: ReadonlyArray<QueryPair>
  readonly body: Body | undefined
}

const encode = (value: unknown) => encodeText(typeof value === "string" ? value : JSON.stringify(value))

/** The document gives a numeric query parameter's bounds only in the title its schema library wrote. */
const numericQueryValue = (parameter: Parameter): fc.Arbitrary<string> | undefined => {
  const between = /^between\((-?[\d.]+), (-?[\d.]+)\)$/.exec(parameter.schema.title ?? "")
  if (between !== null) return fc.integer({ min: Number(between[1]), max: Number(between[2]) }).map(String)
  const atLeast = /^greaterThanOrEqualTo\((-?[\d.]+)\)$/.exec(parameter.schema.title ?? "")
  return atLeast === null ? undefined : fc.integer({ min: Number(atLeast[1]), max: 10_000 }).map(String)
}

const parameterValue = (context: CaseContext, parameter: Parameter): fc.Arbitrary<string> =>
  (context.hints[parameter.name] ?? numericQueryValue(parameter) ?? validValue(context, parameter.schema)).map(encode)

const validParts = (context: CaseContext, operation: Operation): fc.Arbitrary<Parts> => {
  const pathParams = operation.parameters.filter((parameter) => parameter.location === "path")
  const queryParams = operation.parameters.filter((parameter) => parameter.location === "query")
  const path = fc.record(Object.fromEntries(pathParams.map((parameter) => [parameter.name, parameterValue(context, parameter)])))
  const query = fc.tuple(...queryParams.map((parameter) => {
    const pair = parameterValue(context, parameter).map((value): QueryPair => [parameter.name, value])
    return parameter.required ? pair : sometimes(pair, undefined)
  })).map((pairs) => pairs.filter((pair): pair is QueryPair => pair !== undefined))
  const body = operation.body === undefined
    ? fc.constant(undefined)
    : validValue(context, operation.body).map((json): Body => ({ json }))
  return fc.record({ path, query, body })
}

const bodyText = (body: Body) => "json" in body ? JSON.stringify(body.json) : body.text

const assemble = (
  context: CaseContext,
  operation: Operation,
  kind: string,
  parts: Parts,
  options: { readonly method?: string; readonly headers?: Record<string, string | undefined>; readonly chunked?: boolean } = {}
): RequestCase => {
  const path = operation.template.replace(/\{([^}]+)\}/g, (_, name: string) => parts.path[name] ?? "x")
  const query = parts.query.map(([name, value]) => `${name}=${value}`).join("&")
  // An `undefined` header in the options removes the default one.
  const headers = Object.entries({
    authorization: `Bearer ${context.apiKey}`,
    ...(parts.body === undefined ? {} : { "content-type": "application/json" }),
    ...options.headers
  }).filter((entry): entry is [string, string] => entry[1] !== undefined)
  return {
    operation: operation.id,
    kind,
    method: options.method ?? operation.method,
    path: query === "" ? path : `${path}?${query}`,
    headers: Object.fromEntries(headers),
    body: parts.body === undefined ? undefined : bodyText(parts.body),
    chunked: options.chunked ?? false
  }
}

/** The same path as the router may also take it: upper case, doubled slashes, a trailing slash. */
const PATH_SHAPES: ReadonlyArray<(path: string) => string> = [
  (path) => path.toUpperCase(),
  (path) => path.replace(/\//g, "//"),
  (path) => `${path}/`
]

/** Content types the server reads a body by in different ways: JSON, multipart, text, bytes. */
const BODY_TYPES = ["application/json", "multipart/form-data; boundary=x", "text/plain", "application/octet-stream"]

const jsonOf = (parts: Parts) => parts.body !== undefined && "json" in parts.body ? parts.body.json : {}

const withBody = (parts: Parts, body: Body): Parts => ({ ...parts, body })

/** How many copies of an item a long array holds: past a statement's 32,767 and 65,535 parameters with a few columns an item. */
const LONG_ARRAY_LENGTHS = [1_000, 5_000, 20_000]

/** The body mutations: each takes valid parts and a field, and gives the changed body. */
const bodyMutations = (context: CaseContext, fields: ReadonlyArray<Field>) => {
  const any = fc.constantFrom(...fields)
  const strings = fields.filter((field) => normalize(context.document, field.schema).type === "string" || field.schema.anyOf !== undefined)
  const anyString = strings.length > 0 ? fc.constantFrom(...strings) : any
  const userIds = fields.filter((field) => field.path[field.path.length - 1] === "user_id")
  const withInvalid = fields.filter((field) => invalidValue(context, field.schema) !== undefined)
  const required = fields.filter((field) => field.required)
  const arrays = fields.flatMap((field) => {
    const items = normalize(context.document, field.schema).items
    return items === undefined ? [] : [{ field, items }]
  })
  return {
    "wrong-type": withInvalid.length === 0 ? undefined : fc.constantFrom(...withInvalid).chain((field) =>
      (invalidValue(context, field.schema) ?? fc.constant(null)).map((value) => (json: unknown) => setAt(json, field.path, value))
    ),
    "missing-field": required.length === 0 ? undefined : fc.constantFrom(...required).map((field) => (json: unknown) => setAt(json, field.path, undefined)),
    "extra-field": fc.tuple(any, fc.constantFrom("extra", "__proto__", "constructor", "", "\u0000"), fc.jsonValue({ maxDepth: 3 })).map(
      ([field, name, value]) => (json: unknown) => setAt(json, [...field.path.slice(0, -1), name], value)
    ),
    "odd-user-id": userIds.length === 0 ? undefined : fc.tuple(fc.constantFrom(...userIds), oddUserId).map(
      ([field, value]) => (json: unknown) => setAt(json, field.path, value)
    ),
    "unicode": fc.tuple(anyString, oddUnicode).map(([field, value]) => (json: unknown) => setAt(json, field.path, value)),
    "huge-string": fc.tuple(anyString, hugeString).map(([field, value]) => (json: unknown) => setAt(json, field.path, value)),
    "nul": fc.tuple(anyString, nulText).map(([field, value]) => (json: unknown) => setAt(json, field.path, value)),
    "lone-surrogate": fc.tuple(anyString, loneSurrogate).map(([field, value]) => (json: unknown) => setAt(json, field.path, value)),
    "huge-field": fc.tuple(anyString, hugeField(context.maxBodyBytes)).map(([field, value]) => (json: unknown) => setAt(json, field.path, value)),
    // Thousands of one valid item: what a request of many turns or ids asks of a statement.
    "long-array": arrays.length === 0 ? undefined : fc.constantFrom(...arrays).chain(({ field, items }) =>
      fc.tuple(validValue(context, items), fc.constantFrom(...LONG_ARRAY_LENGTHS)).map(([item, length]) => (json: unknown) =>
        setAt(json, field.path, Array.from({ length }, () => item))
      )
    )
  }
}

const mutatedBodies = (context: CaseContext, operation: Operation, parts: fc.Arbitrary<Parts>) => {
  if (operation.body === undefined) return []
  const fields = fieldsOf(context, operation.body)
  const cases = Object.entries(bodyMutations(context, fields)).flatMap(([kind, mutation]) =>
    mutation === undefined ? [] : [fc.tuple(parts, mutation).map(([valid, mutate]) =>
      assemble(context, operation, kind, withBody(valid, { json: mutate(jsonOf(valid)) })))]
  )
  const deepAt = fc.oneof(fc.constant<ReadonlyArray<Key>>([]), fc.constantFrom(...fields).map((field) => field.path))
  return [
    ...cases,
    fc.tuple(parts, deepAt, deepJsonText).map(([valid, path, text]) =>
      assemble(context, operation, "deep-json", withBody(valid, { text: path.length === 0 ? text : spliceText(jsonOf(valid), path, text) }))),
    fc.tuple(parts, fc.constantFrom<unknown>(null, 0, "text", [], [{}], true)).map(([valid, json]) =>
      assemble(context, operation, "not-an-object", withBody(valid, { json }))),
    fc.tuple(parts, malformedJsonText).map(([valid, text]) => assemble(context, operation, "malformed-json", withBody(valid, { text }))),
    fc.tuple(parts, contentType).map(([valid, type]) =>
      assemble(context, operation, "content-type", valid, { headers: { "content-type": type } })),
    fc.tuple(parts, fc.boolean(), fc.constantFrom(1, 1024, 65_536), fc.constantFrom(...BODY_TYPES)).map(([valid, chunked, over, type]) =>
      assemble(context, operation, chunked ? "oversize-chunked" : "oversize", withBody(valid, {
        text: JSON.stringify(setAt(jsonOf(valid), ["padding"], "p".repeat(context.maxBodyBytes + over)))
      }), { chunked, headers: { "content-type": type } })),
    fc.tuple(parts, fc.boolean(), fc.boolean()).map(([valid, multipart, chunked]) =>
      assemble(context, operation, "form-body", withBody(valid, { text: formBody(jsonOf(valid), multipart) }), {
        chunked,
        headers: { "content-type": multipart ? `multipart/form-data; boundary=${BOUNDARY}` : "application/x-www-form-urlencoded" }
      })),
    parts.map((valid) => assemble(context, operation, "chunked", valid, { chunked: true }))
  ]
}

/**
 * Query text a repetition may add: Node answers a request line and headers over 16 KiB itself
 * (431, no envelope) before the service sees them, so the fuzzer stays under that.
 */
const MAX_QUERY_CHARS = 6_000

const userIdPair = (pairs: ReadonlyArray<QueryPair>, value: string) =>
  [...pairs.filter(([name]) => name !== "user_id"), ["user_id", value] as const]

const mutatedQueries = (context: CaseContext, operation: Operation, parts: fc.Arbitrary<Parts>) => {
  const declared = operation.parameters.filter((parameter) => parameter.location === "query")
  const names = declared.length === 0 ? unknownQueryName : fc.oneof(fc.constantFrom(...declared.map((parameter) => parameter.name)), unknownQueryName)
  const required = declared.filter((parameter) => parameter.required)
  const hasUserId = declared.some((parameter) => parameter.name === "user_id")
  return [
    fc.tuple(parts, names, oddQueryValue).map(([valid, name, value]) =>
      assemble(context, operation, "query-value", { ...valid, query: [...valid.query.filter(([key]) => key !== name), [name, value]] })),
    fc.tuple(parts, names, oddQueryValue, fc.constantFrom(2, 3, 300)).map(([valid, name, value, times]) => {
      const repeats = Math.min(times, Math.max(2, Math.floor(MAX_QUERY_CHARS / (name.length + value.length + 2))))
      return assemble(context, operation, "query-repeated", {
        ...valid,
        query: [...valid.query, ...Array.from({ length: repeats }, (): QueryPair => [name, value])]
      })
    }),
    ...(declared.length === 0 ? [] : [fc.tuple(parts, fc.constantFrom(...declared.map((parameter) => parameter.name)), nulText).map(([valid, name, value]) =>
      assemble(context, operation, "query-nul", { ...valid, query: [...valid.query.filter(([key]) => key !== name), [name, encodeText(value)]] }))]),
    ...(required.length === 0 ? [] : [fc.tuple(parts, fc.constantFrom(...required)).map(([valid, parameter]) =>
      assemble(context, operation, "query-missing", { ...valid, query: valid.query.filter(([name]) => name !== parameter.name) }))]),
    ...(!hasUserId ? [] : [fc.tuple(parts, oddUserId).map(([valid, userId]) =>
      assemble(context, operation, "odd-user-id", { ...valid, query: userIdPair(valid.query, encodeText(userId)) }))])
  ]
}

const mutatedPaths = (context: CaseContext, operation: Operation, parts: fc.Arbitrary<Parts>) => {
  const names = operation.parameters.filter((parameter) => parameter.location === "path").map((parameter) => parameter.name)
  if (names.length === 0) return []
  return [fc.tuple(parts, fc.constantFrom(...names), oddPathId).map(([valid, name, id]) =>
    assemble(context, operation, "path-id", { ...valid, path: { ...valid.path, [name]: id } }))]
}

const mutatedRequests = (context: CaseContext, operation: Operation, parts: fc.Arbitrary<Parts>) => [
  ...(operation.secured
    ? [fc.tuple(parts, badCredentials(context.apiKey)).map(([valid, headers]) =>
      assemble(context, operation, "credentials", valid, { headers: { authorization: undefined, ...headers } }))]
    : []),
  fc.tuple(parts, anyMethod).map(([valid, method]) => assemble(context, operation, "method", valid, { method })),
  fc.tuple(parts, fc.constantFrom(...PATH_SHAPES)).map(([valid, shape]) => {
    const request = assemble(context, operation, "path-shape", valid)
    const [path = "", query] = request.path.split("?")
    return { ...request, path: query === undefined ? shape(path) : `${shape(path)}?${query}` }
  }),
  ...(operation.body !== undefined
    ? []
    : [fc.tuple(parts, fc.jsonValue({ maxDepth: 2 })).map(([valid, json]) =>
      assemble(context, operation, "unexpected-body", withBody(valid, { json })))])
]

/** Every request kind for one operation; valid ones weigh as much as all invalid ones together. */
export const requestCase = (context: CaseContext, operation: Operation): fc.Arbitrary<RequestCase> => {
  const parts = validParts(context, operation)
  const valid = fc.tuple(parts, goodCredentials(context.apiKey)).map(([valid, headers]) =>
    assemble(context, operation, "valid", valid, { headers: { authorization: undefined, ...headers } }))
  const invalid = [
    ...mutatedBodies(context, operation, parts),
    ...mutatedQueries(context, operation, parts),
    ...mutatedPaths(context, operation, parts),
    ...mutatedRequests(context, operation, parts)
  ]
  return fc.oneof({ weight: invalid.length, arbitrary: valid }, ...invalid.map((arbitrary) => ({ weight: 1, arbitrary })))
}
