import { Either, Schema } from "effect"

/**
 * The parts of a Hugging Face `tokenizer.json` a BERT-family encoder uses: the BERT normalizer,
 * the BERT pre-tokenizer (whitespace and punctuation), a WordPiece model, and `[CLS] … [SEP]`
 * around the pieces.
 */
const TokenizerJson = Schema.Struct({
  normalizer: Schema.optional(Schema.NullOr(Schema.Struct({
    type: Schema.String,
    lowercase: Schema.optional(Schema.Boolean),
    strip_accents: Schema.optional(Schema.NullOr(Schema.Boolean)),
    clean_text: Schema.optional(Schema.Boolean),
    handle_chinese_chars: Schema.optional(Schema.Boolean)
  }))),
  truncation: Schema.optional(Schema.NullOr(Schema.Struct({ max_length: Schema.Number }))),
  model: Schema.Struct({
    type: Schema.Literal("WordPiece"),
    unk_token: Schema.String,
    continuing_subword_prefix: Schema.optionalWith(Schema.String, { default: () => "##" }),
    max_input_chars_per_word: Schema.optionalWith(Schema.Number, { default: () => 100 }),
    vocab: Schema.Record({ key: Schema.String, value: Schema.Int })
  })
})

export interface Encoding {
  /** Token ids, `[CLS]` first and `[SEP]` last. */
  readonly ids: ReadonlyArray<number>
}

export interface WordPiece {
  /** The ids of one text, cut to `maxLength` tokens in all (the two special tokens included). */
  readonly encode: (text: string, maxLength: number) => Encoding
  /** Largest length the tokenizer file itself asks to truncate to, if it says. */
  readonly truncation: number | undefined
  readonly padId: number
}

const isControl = (code: number) => {
  // Tab, newline and carriage return count as whitespace, not control characters.
  if (code === 0x09 || code === 0x0a || code === 0x0d) return false
  const char = String.fromCodePoint(code)
  return /\p{Cc}|\p{Cf}/u.test(char)
}

const isWhitespace = (char: string) => /\s/u.test(char)

/** ASCII symbols count as punctuation in BERT, beside Unicode's punctuation classes. */
const isPunctuation = (code: number) =>
  (code >= 33 && code <= 47) || (code >= 58 && code <= 64) || (code >= 91 && code <= 96) || (code >= 123 && code <= 126) ||
  /\p{P}/u.test(String.fromCodePoint(code))

const isChinese = (code: number) =>
  (code >= 0x4e00 && code <= 0x9fff) || (code >= 0x3400 && code <= 0x4dbf) || (code >= 0x20000 && code <= 0x2a6df) ||
  (code >= 0x2a700 && code <= 0x2b73f) || (code >= 0x2b740 && code <= 0x2b81f) || (code >= 0x2b820 && code <= 0x2ceaf) ||
  (code >= 0xf900 && code <= 0xfaff) || (code >= 0x2f800 && code <= 0x2fa1f)

interface NormalizerSettings {
  readonly cleanText: boolean
  readonly chineseChars: boolean
  readonly lowercase: boolean
  readonly stripAccents: boolean
}

const normalize = (text: string, settings: NormalizerSettings) => {
  let out = ""
  for (const char of text) {
    const code = char.codePointAt(0)!
    if (settings.cleanText) {
      if (code === 0 || code === 0xfffd || isControl(code)) continue
      if (isWhitespace(char)) {
        out += " "
        continue
      }
    }
    out += settings.chineseChars && isChinese(code) ? ` ${char} ` : char
  }
  if (settings.stripAccents) out = out.normalize("NFD").replace(/\p{Mn}/gu, "")
  return settings.lowercase ? out.toLowerCase() : out
}

/** Splits on whitespace, and makes each punctuation character a word of its own. */
const preTokenize = (text: string): Array<string> => {
  const words: Array<string> = []
  let current = ""
  for (const char of text) {
    if (isWhitespace(char)) {
      if (current !== "") words.push(current)
      current = ""
    } else if (isPunctuation(char.codePointAt(0)!)) {
      if (current !== "") words.push(current)
      words.push(char)
      current = ""
    } else {
      current += char
    }
  }
  if (current !== "") words.push(current)
  return words
}

export const wordPieceFrom = (json: unknown): Either.Either<WordPiece, string> =>
  Either.flatMap(
    Either.mapLeft(Schema.decodeUnknownEither(TokenizerJson)(json), () => "tokenizer.json is not a WordPiece tokenizer this service reads"),
    (file) => {
      const vocab = new Map(Object.entries(file.model.vocab))
      const unk = vocab.get(file.model.unk_token)
      const cls = vocab.get("[CLS]")
      const sep = vocab.get("[SEP]")
      if (unk === undefined || cls === undefined || sep === undefined) {
        return Either.left(`tokenizer.json lacks one of ${file.model.unk_token}, [CLS], [SEP] in its vocabulary`)
      }
      const normalizer = file.normalizer
      const lowercase = normalizer?.lowercase ?? false
      const settings: NormalizerSettings = {
        cleanText: normalizer?.clean_text ?? true,
        chineseChars: normalizer?.handle_chinese_chars ?? true,
        lowercase,
        // BERT strips accents whenever it lowercases, unless told otherwise.
        stripAccents: normalizer?.strip_accents ?? lowercase
      }
      const prefix = file.model.continuing_subword_prefix
      const maxChars = file.model.max_input_chars_per_word

      /** Greedy longest match from the left; a word with a piece missing from the vocabulary is one unknown token. */
      const pieces = (word: string): ReadonlyArray<number> => {
        const chars = Array.from(word)
        if (chars.length > maxChars) return [unk]
        const ids: Array<number> = []
        let start = 0
        while (start < chars.length) {
          let end = chars.length
          let found: number | undefined
          while (start < end) {
            const piece = (start > 0 ? prefix : "") + chars.slice(start, end).join("")
            found = vocab.get(piece)
            if (found !== undefined) break
            end--
          }
          if (found === undefined) return [unk]
          ids.push(found)
          start = end
        }
        return ids
      }

      const encode = (text: string, maxLength: number): Encoding => {
        const room = Math.max(maxLength - 2, 0)
        const ids: Array<number> = [cls]
        for (const word of preTokenize(normalize(text, settings))) {
          if (ids.length - 1 >= room) break
          ids.push(...pieces(word))
        }
        return { ids: [...ids.slice(0, room + 1), sep] }
      }

      return Either.right({
        encode,
        truncation: file.truncation?.max_length ?? undefined,
        padId: vocab.get("[PAD]") ?? 0
      })
    }
  )
