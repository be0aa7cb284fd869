type Json = Record<string, unknown>

const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

const DECODE_ERROR_REF = "#/components/schemas/HttpApiDecodeError"

const refersToDecodeError = (schema: unknown) => isObject(schema) && schema.$ref === DECODE_ERROR_REF

/** The 400 response without the builder's decode error: undefined when nothing else is left. */
const withoutDecodeError = (response: Json): Json | undefined => {
  const content = isObject(response.content) ? response.content["application/json"] : undefined
  const schema = isObject(content) ? content.schema : undefined
  if (refersToDecodeError(schema)) return undefined
  if (!isObject(content) || !isObject(schema) || !Array.isArray(schema.anyOf)) return response
  const members = schema.anyOf.filter((member) => !refersToDecodeError(member))
  const names = members.map((member) => isObject(member) && typeof member.$ref === "string" ? member.$ref.split("/").at(-1) : "")
  return {
    ...response,
    description: names.join(" | "),
    content: { "application/json": { ...content, schema: members.length === 1 ? members[0] : { anyOf: members } } }
  }
}

const REF_PREFIX = "#/components/schemas/"

/** The component names a JSON value refers to, at any depth. */
const refsIn = (value: unknown, into: Set<string>): Set<string> => {
  if (Array.isArray(value)) value.forEach((item) => refsIn(item, into))
  else if (isObject(value)) {
    if (typeof value.$ref === "string" && value.$ref.startsWith(REF_PREFIX)) into.add(value.$ref.slice(REF_PREFIX.length))
    Object.values(value).forEach((item) => refsIn(item, into))
  }
  return into
}

/** Drops the component schemas no operation reaches, directly or through other components. */
const withoutUnreachableSchemas = (paths: Json, schemas: Json) => {
  const reached = refsIn(paths, new Set())
  const pending = [...reached]
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    for (const inner of refsIn(schemas[name], new Set())) {
      if (!reached.has(inner)) {
        reached.add(inner)
        pending.push(inner)
      }
    }
  }
  for (const name of Object.keys(schemas)) if (!reached.has(name)) delete schemas[name]
}

/**
 * The builder documents its own decode error as a 400 on every operation; this service answers
 * schema failures with the 422 `validation_error` envelope instead, so that member is dropped
 * (and the 400 with it when nothing else was declared under it), with the schemas only it used.
 */
export const documentValidationErrors = (spec: Json): Json => {
  const paths = isObject(spec.paths) ? spec.paths : {}
  for (const operations of Object.values(paths)) {
    if (!isObject(operations)) continue
    for (const operation of Object.values(operations)) {
      if (!isObject(operation) || !isObject(operation.responses)) continue
      const badRequest = operation.responses["400"]
      if (!isObject(badRequest)) continue
      const kept = withoutDecodeError(badRequest)
      if (kept === undefined) delete operation.responses["400"]
      else operation.responses["400"] = kept
    }
  }
  const components = isObject(spec.components) ? spec.components : {}
  if (isObject(components.schemas)) withoutUnreachableSchemas(paths, components.schemas)
  return spec
}
