/**
 * The part of an OpenAPI 3.1 document the fuzzer reads: the operations (method, path template,
 * parameters, JSON request body, security) and what each documents it answers (status → the
 * error codes of that status). Also resolves a raw request path the way the server routes it.
 */

/** The JSON Schema keywords the service's document uses (plus `const`, `oneOf`, `nullable`). */
export interface JsonSchema {
  readonly $ref?: string
  readonly type?: string | ReadonlyArray<string>
  readonly properties?: Readonly<Record<string, JsonSchema>>
  readonly required?: ReadonlyArray<string>
  readonly additionalProperties?: boolean | JsonSchema
  readonly items?: JsonSchema
  readonly enum?: ReadonlyArray<unknown>
  readonly const?: unknown
  readonly anyOf?: ReadonlyArray<JsonSchema>
  readonly oneOf?: ReadonlyArray<JsonSchema>
  readonly allOf?: ReadonlyArray<JsonSchema>
  readonly nullable?: boolean
  readonly minItems?: number
  readonly maxItems?: number
  readonly minLength?: number
  readonly maxLength?: number
  readonly minimum?: number
  readonly maximum?: number
  readonly pattern?: string
  readonly title?: string
  readonly description?: string
}

interface MediaObject {
  readonly schema?: JsonSchema
}

interface ParameterObject {
  readonly name: string
  readonly in: string
  readonly required?: boolean
  readonly schema?: JsonSchema
}

interface OperationObject {
  readonly parameters?: ReadonlyArray<ParameterObject>
  readonly requestBody?: { readonly required?: boolean; readonly content: Readonly<Record<string, MediaObject>> }
  readonly responses: Readonly<Record<string, { readonly content?: Readonly<Record<string, MediaObject>> }>>
  readonly security?: ReadonlyArray<unknown>
}

export interface OpenApiDocument {
  readonly paths: Readonly<Record<string, Readonly<Record<string, OperationObject>>>>
  readonly components: { readonly schemas: Readonly<Record<string, JsonSchema>> }
}

export interface Parameter {
  readonly name: string
  readonly location: "path" | "query"
  readonly required: boolean
  readonly schema: JsonSchema
}

/** What an operation documents for one status: its error codes (none for a success) and media type. */
export interface DocumentedResponse {
  readonly codes: ReadonlySet<string>
  readonly contentType: string | undefined
}

export interface Operation {
  /** `METHOD /template`, the key of the figures. */
  readonly id: string
  readonly method: string
  readonly template: string
  readonly parameters: ReadonlyArray<Parameter>
  readonly body: JsonSchema | undefined
  readonly secured: boolean
  readonly responses: ReadonlyMap<number, DocumentedResponse>
}

const HTTP_METHODS = new Set(["get", "put", "post", "delete", "patch", "head", "options", "trace"])

const refName = (ref: string) => ref.replace(/^#\/components\/schemas\//, "")

/** The schema a `$ref` names, with the keywords beside the `$ref` (bounds, in this document) kept over it. */
export const dereference = (document: OpenApiDocument, schema: JsonSchema): JsonSchema => {
  const { $ref, ...beside } = schema
  if ($ref === undefined) return schema
  const target = document.components.schemas[refName($ref)]
  if (target === undefined) throw new Error(`unresolved $ref ${$ref}`)
  return { ...dereference(document, target), ...beside }
}

/** The `code` an error schema pins (its `enum` or `const`), through `$ref` and `anyOf`. */
const errorCodes = (document: OpenApiDocument, schema: JsonSchema | undefined): Array<string> => {
  if (schema === undefined) return []
  const resolved = dereference(document, schema)
  const members = resolved.anyOf ?? resolved.oneOf
  if (members !== undefined) return members.flatMap((member) => errorCodes(document, member))
  const code = resolved.properties?.code
  if (code === undefined) return []
  const pinned = code.const !== undefined ? [code.const] : code.enum ?? []
  return pinned.filter((value): value is string => typeof value === "string")
}

const documentedResponses = (document: OpenApiDocument, operation: OperationObject) =>
  new Map(Object.entries(operation.responses).map(([status, response]) => {
    const [contentType, media] = Object.entries(response.content ?? {})[0] ?? [undefined, undefined]
    return [Number(status), { codes: new Set(errorCodes(document, media?.schema)), contentType }] as const
  }))

const parametersOf = (operation: OperationObject): Array<Parameter> =>
  (operation.parameters ?? []).flatMap((parameter) =>
    parameter.in === "path" || parameter.in === "query"
      ? [{ name: parameter.name, location: parameter.in, required: parameter.required === true, schema: parameter.schema ?? {} }]
      : [])

/** Every operation of the document, in document order. */
export const operationsOf = (document: OpenApiDocument): ReadonlyArray<Operation> =>
  Object.entries(document.paths).flatMap(([template, methods]) =>
    Object.entries(methods).filter(([method]) => HTTP_METHODS.has(method)).map(([method, operation]) => ({
      id: `${method.toUpperCase()} ${template}`,
      method: method.toUpperCase(),
      template,
      parameters: parametersOf(operation),
      body: operation.requestBody?.content["application/json"]?.schema,
      secured: (operation.security ?? []).length > 0,
      responses: documentedResponses(document, operation)
    })))

const patterns = new Map<string, RegExp>()

const templatePattern = (template: string) => {
  const cached = patterns.get(template)
  if (cached !== undefined) return cached
  const source = template.split("/").map((segment) => /^\{.+\}$/.test(segment) ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
  const pattern = new RegExp(`^${source.join("/")}$`, "i")
  patterns.set(template, pattern)
  return pattern
}

/** Where a raw request path lands: the operation for the method, or only the path (a 405), or nothing (a 404). */
export type Resolution =
  | { readonly _tag: "Operation"; readonly operation: Operation }
  | { readonly _tag: "OtherMethod" }
  | { readonly _tag: "NoRoute" }

/**
 * Routes a raw path (query excluded) as the server's router does: case-insensitively, repeated
 * slashes as one, a trailing slash ignored, a parameter one non-empty segment; HEAD is answered
 * by the GET operation.
 */
export const resolve = (operations: ReadonlyArray<Operation>, method: string, rawPath: string): Resolution => {
  const single = rawPath.replace(/\/\/+/g, "/")
  const path = single.length > 1 && single.endsWith("/") ? single.slice(0, -1) : single
  const atPath = operations.filter((operation) => templatePattern(operation.template).test(path))
  const wanted = method === "HEAD" ? "GET" : method
  const operation = atPath.find((candidate) => candidate.method === wanted)
  if (operation !== undefined) return { _tag: "Operation", operation }
  return atPath.length > 0 ? { _tag: "OtherMethod" } : { _tag: "NoRoute" }
}
