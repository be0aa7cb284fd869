type Json = Record<string, unknown>

const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * The builder documents its own decode error as a 400 on every operation; this service answers
 * schema failures with the 422 `validation_error` envelope instead, so that 400 is dropped.
 */
export const documentValidationErrors = (spec: Json): Json => {
  const paths = isObject(spec.paths) ? spec.paths : {}
  for (const operations of Object.values(paths)) {
    if (!isObject(operations)) continue
    for (const operation of Object.values(operations)) {
      if (!isObject(operation) || !isObject(operation.responses)) continue
      const badRequest = operation.responses["400"]
      if (JSON.stringify(badRequest ?? null).includes("HttpApiDecodeError")) {
        delete operation.responses["400"]
      }
    }
  }
  const components = isObject(spec.components) ? spec.components : {}
  if (isObject(components.schemas)) delete components.schemas.HttpApiDecodeError
  return spec
}
