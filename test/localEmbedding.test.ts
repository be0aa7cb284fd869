import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { meanPool, normalizeL2 } from "../src/llm/local/pooling.js"
import { tinyVocabulary } from "../src/llm/local/tinyModel.js"
import { wordPieceFrom } from "../src/llm/local/wordpiece.js"
import { startPool } from "../src/llm/local/workerPool.js"
import { writeTinyModel } from "../src/llm/local/writeTinyModel.js"
import { tempDataRoot } from "./support/server.js"

/** A BERT-uncased tokenizer file cut down to a few entries, at the ids bert-base-uncased (and all-MiniLM-L6-v2) gives them. */
const bertUncased = {
  normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
  model: {
    type: "WordPiece",
    unk_token: "[UNK]",
    continuing_subword_prefix: "##",
    max_input_chars_per_word: 100,
    vocab: { "[PAD]": 0, "[UNK]": 100, "[CLS]": 101, "[SEP]": 102, "!": 999, ",": 1010, ".": 1012, "the": 1996, "hello": 7592, "world": 2088 }
  }
}

const tokenizer = (json: unknown) => Either.getOrThrow(wordPieceFrom(json))

const tinyDirectory = () => {
  const directory = NodePath.join(tempDataRoot(), "tiny")
  writeTinyModel(directory)
  return directory
}

const distance = (a: Float32Array, b: Float32Array) => Math.max(...Array.from(a, (value, i) => Math.abs(value - b[i]!)))
const norm = (vector: Float32Array) => Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0))

describe("WordPiece tokenizer from tokenizer.json", () => {
  it("gives bert-base-uncased's ids: [CLS] and [SEP] around lowercased words, punctuation split off", () => {
    const bert = tokenizer(bertUncased)
    expect(bert.encode("Hello world!", 512).ids).toEqual([101, 7592, 2088, 999, 102])
    expect(bert.encode("HELLO,   the\tworld.", 512).ids).toEqual([101, 7592, 1010, 1996, 2088, 1012, 102])
    expect(bert.encode("hello gibberish", 512).ids).toEqual([101, 7592, 100, 102])
    expect(bert.encode("", 512).ids).toEqual([101, 102])
    expect(bert.padId).toBe(0)
  })

  it("strips accents, drops control characters, splits Chinese characters and words into pieces", () => {
    const vocabulary = tinyVocabulary()
    const file = JSON.parse(NodeFs.readFileSync(NodePath.join(tinyDirectory(), "tokenizer.json"), "utf8"))
    const tiny = tokenizer(file)
    const id = (token: string) => vocabulary.indexOf(token)
    expect(tiny.encode("Playing dogs", 128).ids).toEqual([id("[CLS]"), id("play"), id("##ing"), id("dog"), id("##s"), id("[SEP]")])
    expect(tiny.encode("CAFÉ\u0000 xö", 128).ids).toEqual([id("[CLS]"), id("c"), id("##a"), id("##f"), id("##e"), id("x"), id("##o"), id("[SEP]")])
    expect(tiny.encode("dog中cat", 128).ids).toEqual([id("[CLS]"), id("dog"), id("[UNK]"), id("cat"), id("[SEP]")])
    expect(tiny.encode(`${"a".repeat(101)} dog`, 128).ids).toEqual([id("[CLS]"), id("[UNK]"), id("dog"), id("[SEP]")])
    expect(tiny.truncation).toBe(128)
  })

  it("cuts a long text at the maximum length, [SEP] kept last", () => {
    const bert = tokenizer(bertUncased)
    expect(bert.encode("hello world ".repeat(100), 6).ids).toEqual([101, 7592, 2088, 7592, 2088, 102])
  })

  it("refuses a tokenizer file that is not WordPiece", () => {
    expect(Either.isLeft(wordPieceFrom({ model: { type: "BPE", vocab: {} } }))).toBe(true)
    expect(Either.isLeft(wordPieceFrom({ model: { ...bertUncased.model, vocab: { "[UNK]": 0 } } }))).toBe(true)
  })
})

describe("pooling", () => {
  it("averages the token vectors the mask keeps and scales the mean to unit length", () => {
    // Two rows of three tokens of width two; the second row's last token is padding.
    const hidden = Float32Array.from([1, 0, 0, 1, 2, 2, 4, 0, 0, 4, 100, 100])
    expect(Array.from(meanPool(hidden, [1, 1, 1], 0, 3, 2))).toEqual([1, 1])
    expect(Array.from(meanPool(hidden, [1, 1, 0], 1, 3, 2))).toEqual([2, 2])
    const unit = normalizeL2(Float32Array.from([3, 4]))
    expect(Array.from(unit)).toEqual([Math.fround(0.6), Math.fround(0.8)])
    expect(Array.from(normalizeL2(new Float32Array(2)))).toEqual([0, 0])
  })
})

describe("the local embedder's threads on the tiny model", () => {
  it.scoped("give unit vectors, the same every time, and a batch the same as one by one", () =>
    Effect.gen(function*() {
      const pool = yield* startPool({ directory: tinyDirectory() }, 2)
      expect(pool.dimensions).toBe(32)
      expect(pool.maxTokens).toBe(128)
      const texts = ["I walked the dog in the park", "coffee", "We cooked pasta for dinner last night with my sister", "the the the ".repeat(200)]
      const batch = yield* pool.run(texts, "bulk")
      const again = yield* pool.run(texts, "bulk")
      const oneByOne = yield* Effect.forEach(texts, (text) => Effect.map(pool.run([text], "query"), (vectors) => vectors[0]!))
      expect(batch).toHaveLength(4)
      batch.forEach((vector, i) => {
        expect(vector).toHaveLength(32)
        expect(norm(vector)).toBeCloseTo(1, 5)
        expect(Array.from(again[i]!)).toEqual(Array.from(vector))
        expect(distance(oneByOne[i]!, vector)).toBeLessThan(1e-5)
      })
      expect(distance(batch[0]!, batch[1]!)).toBeGreaterThan(1e-3)
    }), { timeout: 120_000 })

  it.scoped("fails to start with the reason when the model file is not a model", () =>
    Effect.gen(function*() {
      const directory = tinyDirectory()
      NodeFs.writeFileSync(NodePath.join(directory, "model.onnx"), "not a model")
      const started = yield* Effect.either(startPool({ directory }, 1))
      expect(Either.isLeft(started) && started.left).toMatch(/model|protobuf|load/i)
    }), { timeout: 120_000 })
})
