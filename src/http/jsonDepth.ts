import { HttpServerError, type HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"

/**
 * How deep a request body may nest. The request schemas nest 4 levels; what decides the limit
 * is that the schema library formats a failed value recursively, one stack frame per level, so
 * a body thousands of levels deep would overflow the stack rather than fail validation.
 */
export const MAX_JSON_DEPTH = 64

/** The offset of the first `[` or `{` that opens a level deeper than `maxDepth` (outside strings), if any. */
export const tooDeepAt = (text: string, maxDepth = MAX_JSON_DEPTH): number | undefined => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const char = text[i]
    if (inString) {
      if (char === "\\") i++
      else if (char === "\"") inString = false
    } else if (char === "\"") {
      inString = true
    } else if (char === "[" || char === "{") {
      if (++depth > maxDepth) return i
    } else if (char === "]" || char === "}") {
      depth--
    }
  }
  return undefined
}

/**
 * The request's body as JSON, refused when nested deeper than MAX_JSON_DEPTH with the same
 * decode error as malformed JSON, before anything parses it. It runs when the body is read, so
 * authentication still comes first; the text is the request's own, read and cached once.
 */
export const jsonWithinDepth = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<unknown, HttpServerError.RequestError> =>
  Effect.flatMap(request.text, (text) => {
    const offset = tooDeepAt(text)
    return offset === undefined ? request.json : Effect.fail(
      new HttpServerError.RequestError({
        request,
        reason: "Decode",
        cause: new SyntaxError(`JSON nested deeper than ${MAX_JSON_DEPTH} levels at position ${offset}`)
      })
    )
  })
