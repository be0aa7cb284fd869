/**
 * What an OpenAPI document leaves unexplained to its reader: operations, tags, parameters and
 * object properties without a description, and request bodies without an example. It walks the
 * document as served, so a field added to the contract without a description shows up here.
 */

type Json = Record<string, unknown>

const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

const HTTP_METHODS = new Set(["get", "put", "post", "delete", "patch", "head", "options", "trace"])

/**
 * Effect derives a description from a refinement ("a string at most 128 character(s) long",
 * "an integer"): it names the type, not what the field means, so it does not count as one.
 */
const isGenerated = (description: string) => /^an? [a-z]/.test(description)

const written = (description: unknown) =>
  typeof description === "string" && description.trim() !== "" && !isGenerated(description)

const componentOf = (document: Json, ref: string): Json | undefined => {
  const components = isObject(document.components) ? document.components : {}
  const schemas = isObject(components.schemas) ? components.schemas : {}
  const target = schemas[ref.replace(/^#\/components\/schemas\//, "")]
  return isObject(target) ? target : undefined
}

/** A property's own description, or that of the one component it only refers to. */
const isDescribed = (document: Json, property: Json): boolean => {
  if (written(property.description)) return true
  if (typeof property.$ref === "string") {
    const target = componentOf(document, property.$ref)
    return target !== undefined && written(target.description)
  }
  return false
}

const SUBSCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"] as const
const SUBSCHEMAS = ["items", "additionalProperties", "not", "contentSchema"] as const

interface PropertyEntry {
  readonly at: string
  readonly described: boolean
}

/** Every object property under a schema, named by its path; `$ref`s are walked where they are defined. */
const propertiesUnder = (document: Json, schema: unknown, at: string): Array<PropertyEntry> => {
  if (!isObject(schema)) return []
  const properties = isObject(schema.properties) ? Object.entries(schema.properties) : []
  const own = properties.flatMap(([name, property]) => [
    { at: `${at}.${name}`, described: isObject(property) && isDescribed(document, property) },
    ...propertiesUnder(document, property, `${at}.${name}`)
  ])
  const nested = [
    ...SUBSCHEMA_LISTS.flatMap((key) =>
      Array.isArray(schema[key]) ? schema[key].flatMap((member: unknown) => propertiesUnder(document, member, at)) : []),
    ...SUBSCHEMAS.flatMap((key) => propertiesUnder(document, schema[key], `${at}[]`)),
    ...(isObject(schema.patternProperties)
      ? Object.values(schema.patternProperties).flatMap((member) => propertiesUnder(document, member, `${at}[]`))
      : [])
  ]
  return [...own, ...nested]
}

interface OperationEntry {
  readonly id: string
  readonly operation: Json
}

/** Every operation of the document as `METHOD /path`. */
const operationsOf = (document: Json): Array<OperationEntry> =>
  Object.entries(isObject(document.paths) ? document.paths : {}).flatMap(([path, methods]) =>
    isObject(methods)
      ? Object.entries(methods).flatMap(([method, operation]) =>
        HTTP_METHODS.has(method) && isObject(operation) ? [{ id: `${method.toUpperCase()} ${path}`, operation }] : [])
      : [])

const mediaOf = (operation: Json): Array<[string, Json]> => {
  const body = isObject(operation.requestBody) ? operation.requestBody : undefined
  const content = body !== undefined && isObject(body.content) ? body.content : {}
  return Object.entries(content).flatMap(([type, media]) => isObject(media) ? [[type, media]] : [])
}

/** The examples a request body's media type gives, on the media type or on its schema. */
export const requestExamples = (media: Json): Array<unknown> => {
  const schema = isObject(media.schema) ? media.schema : {}
  return [
    ...("example" in media ? [media.example] : []),
    ...(isObject(media.examples) ? Object.values(media.examples).map((e) => isObject(e) ? e.value : undefined) : []),
    ...(Array.isArray(schema.examples) ? schema.examples : [])
  ]
}

/** Each operation's request bodies, by media type. */
export const requestBodiesOf = (document: Json): Array<{ readonly id: string; readonly type: string; readonly media: Json }> =>
  operationsOf(document).flatMap(({ id, operation }) => mediaOf(operation).map(([type, media]) => ({ id, type, media })))

export interface DocumentGaps {
  readonly operations: ReadonlyArray<string>
  readonly summaries: ReadonlyArray<string>
  readonly tags: ReadonlyArray<string>
  readonly parameters: ReadonlyArray<string>
  readonly properties: ReadonlyArray<string>
  /** How many object properties the document holds, described or not. */
  readonly propertyTotal: number
  readonly requestBodiesWithoutExample: ReadonlyArray<string>
}

/** What the document leaves undescribed, each item named so that a failure says where. */
export const documentGaps = (document: Json): DocumentGaps => {
  const operations = operationsOf(document)
  const schemas = isObject(document.components) && isObject(document.components.schemas) ? document.components.schemas : {}
  const inline = operations.flatMap(({ id, operation }) => [
    ...mediaOf(operation).map(([type, media]) => [`${id} body ${type}`, media.schema] as const),
    ...Object.entries(isObject(operation.responses) ? operation.responses : {}).flatMap(([status, response]) =>
      isObject(response) && isObject(response.content)
        ? Object.entries(response.content).map(([type, media]) => [`${id} ${status} ${type}`, isObject(media) ? media.schema : undefined] as const)
        : []),
    ...(Array.isArray(operation.parameters) ? operation.parameters : []).map((parameter: unknown) =>
      [`${id} parameter`, isObject(parameter) ? parameter.schema : undefined] as const)
  ])
  const parameters = operations.flatMap(({ id, operation }) =>
    (Array.isArray(operation.parameters) ? operation.parameters : []).flatMap((parameter: unknown) =>
      isObject(parameter) && written(parameter.description) ? [] : [`${id} ${isObject(parameter) ? String(parameter.name) : "?"}`]))
  const properties = [
    ...Object.entries(schemas).flatMap(([name, schema]) => propertiesUnder(document, schema, name)),
    ...inline.flatMap(([at, schema]) => propertiesUnder(document, schema, at))
  ]
  return {
    operations: operations.filter(({ operation }) => !written(operation.description)).map(({ id }) => id),
    summaries: operations.filter(({ operation }) => !written(operation.summary)).map(({ id }) => id),
    tags: (Array.isArray(document.tags) ? document.tags : []).flatMap((tag: unknown) =>
      isObject(tag) && written(tag.description) ? [] : [isObject(tag) ? String(tag.name) : "?"]),
    parameters,
    properties: properties.filter(({ described }) => !described).map(({ at }) => at),
    propertyTotal: properties.length,
    requestBodiesWithoutExample: requestBodiesOf(document).filter(({ media }) => requestExamples(media).length === 0).map(({ id, type }) => `${id} ${type}`)
  }
}
