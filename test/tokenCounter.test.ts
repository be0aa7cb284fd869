import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck } from "effect"
import { countTokens, decode, encode, vocabularySize } from "gpt-tokenizer"
import ranks from "gpt-tokenizer/bpeRanks/o200k_base"
import { createRequire } from "node:module"
import * as NodePath from "node:path"
import { textFingerprint } from "../src/domain/text.js"
import { withTokenCounter } from "../src/retrieval/tokenizer.js"

const plain = { disallowedSpecial: new Set<string>() }

describe("the context block's token counter", () => {
  it.effect("counts as the tokenizer does, the first time and from its remembered counts, texts of one length alike", () =>
    Effect.gen(function*() {
      // Same length, different counts: a key that lost the text's content would mix them up.
      const texts = ["aaaaaaaaaaaaaaaaaaaa", "a b c d e f g h i j ", "Caroline <|endoftext|>", "- evidence_id=t1 support=I moved to Lisbon in 2019"]
      const first = yield* withTokenCounter((count) => texts.map(count))
      const again = yield* withTokenCounter((count) => [...texts].reverse().map(count).reverse())
      const expected = texts.map((text) => countTokens(text, plain))
      expect(first).toEqual(expected)
      expect(again).toEqual(expected)
      expect(expected[0]).not.toBe(expected[1])
    }))

  it("fingerprints texts apart that differ in one character, in its place or its length, and stays a safe integer", () => {
    FastCheck.assert(FastCheck.property(FastCheck.string({ maxLength: 40 }), FastCheck.string({ maxLength: 40 }), (a, b) => {
      const [one, other] = [textFingerprint(a), textFingerprint(b)]
      expect(Number.isSafeInteger(one)).toBe(true)
      if (a !== b) expect(one).not.toBe(other)
    }))
    const base = "x".repeat(64)
    const variants = [base, `${base}x`, base.slice(1), ...Array.from({ length: 64 }, (_, i) => `${base.slice(0, i)}y${base.slice(i + 1)}`)]
    expect(new Set(variants.map(textFingerprint)).size).toBe(variants.length)
  })
})

/** The tokenizer the build keeps beside the bundles, its rank table read from JSON there. */
interface BuiltTokenizer {
  readonly vocabularySize: number
  readonly decode: (tokens: ReadonlyArray<number>) => string
  readonly encode: (text: string, options: typeof plain) => Array<number>
}
const builtTokenizer = (): BuiltTokenizer => createRequire(import.meta.url)(NodePath.resolve(import.meta.dirname, "../dist/vendor/gpt-tokenizer.cjs"))

describe("the build's tokenizer", () => {
  it("holds every token the package holds, at its rank, and encodes any text alike", () => {
    const built = builtTokenizer()
    expect(built.vocabularySize).toBe(vocabularySize)
    const ids = Array.from({ length: ranks.length }, (_, id) => id)
    const differing = ids.filter((id) => built.decode([id]) !== decode([id]))
    expect(differing).toEqual([])
    for (const text of ["Caroline moved to Lisbon in 2019.", "naïve café — 東京 🙂 <|endoftext|>", "\t\n  \u0000"]) {
      expect(built.encode(text, plain)).toEqual(encode(text, plain))
    }
    FastCheck.assert(FastCheck.property(FastCheck.string({ unit: "grapheme", maxLength: 60 }), (text) => {
      expect(built.encode(text, plain)).toEqual(encode(text, plain))
    }))
  }, 60_000)
})
