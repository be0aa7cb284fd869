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

/**
 * The builder documents its own decode error as a 400 on every operation; this service answers
 * schema failures with the 422 `validation_error` envelope instead, so that member is dropped
 * (and the 400 with it when nothing else was declared under it).
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
  if (isObject(components.schemas)) delete components.schemas.HttpApiDecodeError
  return spec
}
