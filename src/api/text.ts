import { Schema } from "effect"
import { hasLoneSurrogate, hasNul } from "../domain/storableText.js"
import { ValidationTypeId } from "./validation.js"

/**
 * The rule every string a client sends must keep, the same whatever stores it: no U+0000 (NUL)
 * and no lone UTF-16 surrogate. PostgreSQL's text cannot hold NUL at all, and a lone surrogate
 * has no UTF-8 form, so each store would change it silently (or refuse it) in its own way.
 * docs/text.md gives the reasons and the limits.
 */
const NUL_MESSAGE = "String should not contain the NUL character (U+0000)"
const SURROGATE_MESSAGE = "String should be valid Unicode: a lone UTF-16 surrogate has no UTF-8 form"

/**
 * Any string a client sends: refused with NUL or a lone surrogate. The rule has no JSON Schema
 * keyword; the empty `jsonSchema` keeps a field's own description in the OpenAPI document.
 */
export const Text = Schema.String.pipe(
  Schema.filter((text) => !hasNul(text), {
    message: () => NUL_MESSAGE,
    jsonSchema: {},
    [ValidationTypeId]: { type: "string_nul", msg: NUL_MESSAGE }
  }),
  Schema.filter((text) => !hasLoneSurrogate(text), {
    message: () => SURROGATE_MESSAGE,
    jsonSchema: {},
    [ValidationTypeId]: { type: "string_unicode", msg: SURROGATE_MESSAGE }
  })
)

/**
 * The most UTF-8 bytes one turn's content (or a correction's) may have. PostgreSQL indexes a
 * row's words in one tsvector, whose lexemes may take at most 1 MiB (their offsets are 20-bit);
 * lower-casing can make a letter's UTF-8 up to half as long again, so 512 KiB of text never
 * reaches it. SQLite keeps the same limit, so that both backends accept the same turns.
 */
export const MAX_CONTENT_BYTES = 524_288

/** The length of text once encoded as UTF-8 (a surrogate pair is one 4-byte character). */
export const utf8Length = (text: string) => {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    bytes += unit < 0x80 ? 1 : unit < 0x800 ? 2 : unit >= 0xd800 && unit <= 0xdbff ? (i++, 4) : 3
  }
  return bytes
}

/** A string with length bounds, as the reference service bounds ids and names. */
export const boundedText = (min: number, max: number) => Text.pipe(Schema.minLength(min), Schema.maxLength(max))

const CONTENT_MESSAGE = `String should have at most ${MAX_CONTENT_BYTES} bytes of UTF-8`

/** The content of one turn, or of a correction: Text within MAX_CONTENT_BYTES. */
export const Content = Text.pipe(Schema.filter((text) => utf8Length(text) <= MAX_CONTENT_BYTES, {
  message: () => CONTENT_MESSAGE,
  description: `at most ${MAX_CONTENT_BYTES} bytes of UTF-8`,
  jsonSchema: {},
  [ValidationTypeId]: { type: "string_too_long", msg: CONTENT_MESSAGE, ctx: { max_bytes: MAX_CONTENT_BYTES } }
}))
