import type { HttpServerError, Multipart } from "@effect/platform"
import { Effect, Predicate } from "effect"
import { type ParseError, parse as parseJson } from "jsonc-parser"
import { PayloadTooLarge } from "../api/errors.js"
import { validationFailed } from "./errorResponse.js"
import { tooDeepAt } from "./jsonDepth.js"

/** The body is over the size limit: whether it said so up front or ran past it while streaming. */
export const payloadTooLarge = (maxBodyBytes: number) =>
  new PayloadTooLarge({ message: `request body exceeds ${maxBodyBytes} bytes`, details: { max_bytes: maxBodyBytes } })

/**
 * Where a body stops being JSON, as a character offset (V8's messages no longer carry one). A
 * body nested too deep stops where it goes too deep (the parser here would recurse past the stack).
 */
const jsonErrorOffset = (text: string) => {
  const tooDeep = tooDeepAt(text)
  if (tooDeep !== undefined) return tooDeep
  const errors: Array<ParseError> = []
  parseJson(text, errors, { disallowComments: true, allowTrailingComma: false })
  return errors[0]?.offset ?? 0
}

/** The body could not be read: over the size limit, or not JSON. */
export const fromRequestError = (error: HttpServerError.RequestError, maxBodyBytes: number) =>
  Effect.gen(function*() {
    const cause = String(error.cause ?? error.description ?? "")
    if (cause.includes("maxBytes exceeded")) return payloadTooLarge(maxBodyBytes)
    const text = yield* Effect.orElseSucceed(error.request.text, () => "")
    return validationFailed([{
      type: "json_invalid",
      loc: ["body", jsonErrorOffset(text)],
      msg: "JSON decode error",
      input: {},
      ctx: { error: cause.replace(/^SyntaxError: /, "") }
    }])
  })

const MULTIPART_SIZE_REASONS = new Set(["BodyTooLarge", "FileTooLarge", "FieldTooLarge"])

/**
 * A multipart body that could not be read: over the size limit (413), or not multipart (422).
 * A limit reached while a file part streams to disk arrives as an InternalError whose cause is
 * the parser's own `ReachedLimit`.
 */
export const fromMultipartError = (error: Multipart.MultipartError, maxBodyBytes: number) => {
  const { cause } = error
  const reachedLimit = Predicate.hasProperty(cause, "_tag") && cause._tag === "ReachedLimit" &&
    !(Predicate.hasProperty(cause, "limit") && cause.limit === "MaxParts")
  return MULTIPART_SIZE_REASONS.has(error.reason) || reachedLimit
    ? payloadTooLarge(maxBodyBytes)
    : validationFailed([{ type: "value_error", loc: ["body"], msg: "Unreadable multipart/form-data body", input: null, ctx: { error: error.reason } }])
}
