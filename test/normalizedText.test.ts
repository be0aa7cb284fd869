import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { normalizedTextKeys, normalizeText, StatementSet } from "../src/domain/text.js"

/** Whether each pair of keys is equal exactly when the pair's normalized texts are. */
const agreesWithNormalizeText = (texts: ReadonlyArray<string>) => {
  const keys = normalizedTextKeys(texts)
  const normalized = texts.map(normalizeText)
  for (let i = 0; i < texts.length; i++) {
    for (let j = 0; j < texts.length; j++) {
      if ((keys[i] === keys[j]) !== (normalized[i] === normalized[j])) return false
    }
  }
  return true
}

// Characters where a hash over ASCII alone could go wrong: case, separators, digits, and
// non-ASCII letters and separators (the Kelvin sign lowers to ASCII k, U+0130 to i and a mark).
const tricky = FastCheck.constantFrom(
  "a", "A", "b", "B", "k", "K", "i", "I", "0", "9", " ", "  ", "\n", "\t", "-", "'", "!", ".",
  "\u2019", "\u212a", "\u0130", "\u00e9", "\u00c9", "\u00a0", "\u3000", "\u{1f600}", "\ud800", "\u0307"
)
const trickyText = FastCheck.array(tricky, { maxLength: 12 }).map((parts) => parts.join(""))

describe("normalizedTextKeys: one key per normalized text, without normalizing every text", () => {
  it("gives equal keys to texts that differ in case, spacing and punctuation, in ASCII or not", () => {
    const texts = [
      "I can't swim.",
      "i CAN'T   swim",
      "I can\u2019t swim!",
      "I can swim",
      "  ",
      "",
      "!?",
      "Kelvin",
      "\u212aelvin",
      "caf\u00e9",
      "CAF\u00c9"
    ]
    const keys = normalizedTextKeys(texts)
    expect(keys[0]).toBe(keys[1])
    expect(keys[0]).toBe(keys[2])
    expect(keys[0]).not.toBe(keys[3])
    expect(keys[4]).toBe(keys[5])
    expect(keys[4]).toBe(keys[6])
    expect(keys[7]).toBe(keys[8])
    expect(keys[9]).toBe(keys[10])
    expect(agreesWithNormalizeText(texts)).toBe(true)
  })

  it("agrees with normalizeText on any texts", () => {
    FastCheck.assert(FastCheck.property(FastCheck.array(trickyText, { maxLength: 30 }), agreesWithNormalizeText), { numRuns: 2_000 })
    FastCheck.assert(FastCheck.property(FastCheck.array(FastCheck.fullUnicodeString({ maxLength: 20 }), { maxLength: 20 }), agreesWithNormalizeText), { numRuns: 500 })
    FastCheck.assert(FastCheck.property(FastCheck.array(FastCheck.string16bits({ maxLength: 20 }), { maxLength: 20 }), agreesWithNormalizeText), { numRuns: 500 })
  })

  it("keeps texts whose hashes collide apart by their normalized texts", () => {
    // "cxiltycene" and "bofsavqvoq" share their 32-bit hash.
    const keys = normalizedTextKeys(["cxiltycene", "BOFSAVQVOQ!", "Cxiltycene.", "another"])
    expect(keys[0]).toBe("cxiltycene")
    expect(keys[1]).toBe("bofsavqvoq")
    expect(keys[2]).toBe(keys[0])
    expect(typeof keys[3]).toBe("number")
  })

  it("keys one same text stored twice by its hash, without normalizing it, and a colliding group by its normalized texts", () => {
    const keys = normalizedTextKeys(["I can swim", "I can swim", "cxiltycene", "cxiltycene", "bofsavqvoq", "I CAN SWIM"])
    expect(typeof keys[0]).toBe("string")
    expect(keys.slice(1, 5)).toEqual([keys[0], "cxiltycene", "cxiltycene", "bofsavqvoq"])
    expect(keys[5]).toBe(keys[0])
    const same = normalizedTextKeys(["I can swim", "I can swim", "another"])
    expect(typeof same[0]).toBe("number")
    expect(same[1]).toBe(same[0])
  })
})

/** Whether adding the texts one by one says "new" exactly for those whose normalized text is. */
const addsAsNormalizeTextSays = (texts: ReadonlyArray<string>) => {
  const set = new StatementSet()
  const seen = new Set<string>()
  return texts.every((text) => {
    const normalized = normalizeText(text)
    const isNew = !seen.has(normalized)
    seen.add(normalized)
    return set.add(text) === isNew
  })
}

describe("StatementSet: statements told apart as normalizeText tells them", () => {
  it("holds a statement once, however it is cased, spaced or punctuated", () => {
    const set = new StatementSet()
    expect(["I can't swim.", "i CAN'T   swim", "I can\u2019t swim!", "I can swim", "I can swim"].map((text) => set.add(text)))
      .toEqual([true, false, false, true, false])
  })

  it("keeps texts whose hashes collide apart by their normalized texts", () => {
    const set = new StatementSet()
    expect(["cxiltycene", "BOFSAVQVOQ!", "Cxiltycene.", "bofsavqvoq"].map((text) => set.add(text))).toEqual([true, true, false, false])
  })

  it("agrees with normalizeText on any texts", () => {
    FastCheck.assert(FastCheck.property(FastCheck.array(trickyText, { maxLength: 30 }), addsAsNormalizeTextSays), { numRuns: 2_000 })
    FastCheck.assert(FastCheck.property(FastCheck.array(FastCheck.fullUnicodeString({ maxLength: 20 }), { maxLength: 20 }), addsAsNormalizeTextSays), { numRuns: 500 })
  })
})
