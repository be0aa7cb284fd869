/** Text reduced to what makes two items the same statement: case, spacing and punctuation aside. */
export const normalizeText = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim()

/** Names as stored for entities: lower case, accents and punctuation removed. */
export const normalizeName = (name: string) => name.normalize("NFKD").replace(/\p{M}+/gu, "").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim()

// FNV-1a over UTF-16 code units, 32 bits.
const FNV_OFFSET = 0x811c9dc5
const FNV_PRIME = 0x01000193
const mixed = (hash: number, code: number) => Math.imul(hash ^ code, FNV_PRIME)

const hashOf = (text: string) => {
  let hash = FNV_OFFSET
  for (let i = 0; i < text.length; i++) hash = mixed(hash, text.charCodeAt(i))
  return hash >>> 0
}

const SECOND_LANE_PRIME = 0x5bd1e995

/**
 * A 53-bit fingerprint of a text, from two 32-bit hash lanes (FNV-1a and a multiply-xorshift):
 * a key that stands for a text without holding it, where a wrong match would cost little.
 */
export const textFingerprint = (text: string) => {
  let fnv = FNV_OFFSET
  let second = Math.imul(text.length, SECOND_LANE_PRIME)
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    fnv = mixed(fnv, code)
    second = Math.imul(second ^ code, SECOND_LANE_PRIME)
    second ^= second >>> 15
  }
  return (second >>> 11) * 0x1_0000_0000 + (fnv >>> 0)
}

const SPACE = 0x20

/**
 * `hashOf(normalizeText(text))`, in one pass over ASCII text without building the normalized
 * string (there its letters and digits are [A-Za-z0-9], and lower case is only A-Z's).
 */
const normalizedTextHash = (text: string) => {
  let hash = FNV_OFFSET
  let gap = false
  let started = false
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i)
    if (code > 0x7f) return hashOf(normalizeText(text))
    if (code >= 0x41 && code <= 0x5a) code += 0x20
    if ((code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39)) {
      if (gap && started) hash = mixed(hash, SPACE)
      hash = mixed(hash, code)
      started = true
      gap = false
    } else {
      gap = true
    }
  }
  return hash >>> 0
}

/**
 * A key per text, two keys equal exactly when the texts' `normalizeText` are: the hash alone
 * where the texts sharing it are one same text (the common case: the same words stored twice),
 * else the normalized text. Normalizing every candidate of a search had been a tenth of what the
 * search allocated.
 */
export const normalizedTextKeys = (texts: ReadonlyArray<string>): Array<string | number> => {
  const hashes = texts.map(normalizedTextHash)
  // Per hash, its first text, or null once a different text shares the hash.
  const sameText = new Map<number, string | null>()
  hashes.forEach((hash, i) => {
    const seen = sameText.get(hash)
    if (seen === undefined) sameText.set(hash, texts[i]!)
    else if (seen !== null && seen !== texts[i]) sameText.set(hash, null)
  })
  return hashes.map((hash, i) => sameText.get(hash) === null ? normalizeText(texts[i]!) : hash)
}

/**
 * Statements told apart as `normalizeText` tells them, held by the hash of their normalized text:
 * a text is normalized only when one already held shares its hash.
 */
export class StatementSet {
  private readonly byHash = new Map<number, Array<string>>()

  /** Adds the text's statement; false when an equal one was held already. */
  add(text: string): boolean {
    const hash = normalizedTextHash(text)
    const held = this.byHash.get(hash)
    if (held === undefined) {
      this.byHash.set(hash, [text])
      return true
    }
    if (held.includes(text)) return false
    const normalized = normalizeText(text)
    if (held.some((other) => normalizeText(other) === normalized)) return false
    held.push(text)
    return true
  }
}
