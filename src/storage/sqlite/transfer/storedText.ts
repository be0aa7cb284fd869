/**
 * Text as an earlier build may have written it: better-sqlite3 writes a lone UTF-16 surrogate as
 * the three bytes of its code point (ED A0 80 for U+D800), which are not UTF-8 and read back as
 * three U+FFFD. Decoding those bytes as generalized UTF-8 gives the surrogate back; any other
 * invalid byte reads as U+FFFD, as SQLite's own reading does.
 */
const LEAD_BITS = [0x7f, 0x1f, 0x0f, 0x07]
const SMALLEST = [0, 0x80, 0x800, 0x10000]
const CHUNK = 8192

/** How many continuation bytes follow a lead byte; -1 for a byte no character starts with. */
const continuations = (lead: number) => lead < 0x80 ? 0 : lead >= 0xc2 && lead < 0xe0 ? 1 : lead >= 0xe0 && lead < 0xf0 ? 2 : lead >= 0xf0 && lead < 0xf5 ? 3 : -1

/** The code point of the character starting at `at`, with its length in bytes; undefined when the bytes there are invalid. */
const codePointAt = (bytes: Uint8Array, at: number): { readonly code: number; readonly length: number } | undefined => {
  const lead = bytes[at] ?? 0
  const following = continuations(lead)
  if (following < 0) return undefined
  let code = lead & (LEAD_BITS[following] ?? 0)
  for (let k = 1; k <= following; k++) {
    const next = bytes[at + k]
    if (next === undefined || (next & 0xc0) !== 0x80) return undefined
    code = (code << 6) | (next & 0x3f)
  }
  return code < (SMALLEST[following] ?? 0) || code > 0x10ffff ? undefined : { code, length: following + 1 }
}

export const decodeStoredText = (bytes: Uint8Array): string => {
  const units: Array<number> = []
  for (let at = 0; at < bytes.length;) {
    const found = codePointAt(bytes, at)
    if (found === undefined) {
      units.push(0xfffd)
      at++
      continue
    }
    const { code, length } = found
    if (code >= 0x10000) units.push(0xd800 + ((code - 0x10000) >> 10), 0xdc00 + ((code - 0x10000) & 0x3ff))
    else units.push(code)
    at += length
  }
  let text = ""
  for (let from = 0; from < units.length; from += CHUNK) text += String.fromCharCode(...units.slice(from, from + CHUNK))
  return text
}
