import type { HttpServerError } from "@effect/platform"
import { Effect } from "effect"
import { type ParseError, parse as parseJson } from "jsonc-parser"
import { PayloadTooLarge } from "../api/errors.js"
import { UnreadableMediaType } from "./contentType.js"
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

/**
 * A body of a media type its route does not read: not what the route reads (an object, as the
 * contract reports any body not sent as JSON), with what was declared.
 */
export const unreadableBody = (refused: UnreadableMediaType, text: string) =>
  validationFailed([{
    type: "model_attributes_type",
    loc: ["body"],
    msg: `Input should be ${refused.accepted.reads}: ${refused.message}`,
    input: text,
    ctx: { content_type: refused.contentType, expected: refused.accepted.expected }
  }])

/** The body could not be read: over the size limit, not of a JSON media type, or not JSON. */
export const fromRequestError = (error: HttpServerError.RequestError, maxBodyBytes: number) =>
  Effect.gen(function*() {
    const cause = String(error.cause ?? error.description ?? "")
    if (cause.includes("maxBytes exceeded")) return payloadTooLarge(maxBodyBytes)
    const text = yield* Effect.orElseSucceed(error.request.text, () => "")
    if (error.cause instanceof UnreadableMediaType) return unreadableBody(error.cause, text)
    return validationFailed([{
      type: "json_invalid",
      loc: ["body", jsonErrorOffset(text)],
      msg: "JSON decode error",
      input: {},
      ctx: { error: cause.replace(/^SyntaxError: /, "") }
    }])
  })
