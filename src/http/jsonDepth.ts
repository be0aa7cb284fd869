import { Either } from "effect"

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
 * A body's text as JSON, refused when nested deeper than MAX_JSON_DEPTH with the same kind of
 * error as malformed JSON, before anything parses it.
 */
export const parseJsonWithinDepth = (text: string): Either.Either<unknown, SyntaxError> => {
  const offset = tooDeepAt(text)
  return offset === undefined
    ? Either.try({ try: (): unknown => JSON.parse(text), catch: (cause) => cause instanceof SyntaxError ? cause : new SyntaxError(String(cause)) })
    : Either.left(new SyntaxError(`JSON nested deeper than ${MAX_JSON_DEPTH} levels at position ${offset}`))
}
