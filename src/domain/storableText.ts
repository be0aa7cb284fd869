/**
 * Text every store keeps as it was given: no U+0000 (NUL), which PostgreSQL's text cannot hold,
 * and no lone UTF-16 surrogate, which has no UTF-8 form (docs/text.md).
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, "g")

export const hasNul = (text: string) => text.includes("\u0000")

export const hasLoneSurrogate = (text: string) => LONE_SURROGATE.test(text)

/** What keeps text from being stored as it is, if anything. */
export const unstorableReason = (text: string): "nul" | "lone_surrogate" | undefined =>
  hasNul(text) ? "nul" : hasLoneSurrogate(text) ? "lone_surrogate" : undefined

/**
 * Text from outside the request's rule (an LLM provider's reply) made storable: NUL dropped, each
 * lone surrogate replaced by U+FFFD. A client's text is refused instead (src/api/text.ts).
 */
export const storableForm = (text: string) =>
  text.replaceAll("\u0000", "").replace(LONE_SURROGATES, "\ufffd")
