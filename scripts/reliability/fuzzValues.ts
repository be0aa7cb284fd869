/**
 * The hostile inputs of the fuzzer, as arbitraries: odd user ids, unicode, huge strings, deeply
 * nested and malformed JSON text, odd query values and path ids, content types, credentials.
 */
import { FastCheck as fc } from "effect"
import * as NodeHttp from "node:http"
import { MAX_CONTENT_BYTES } from "../../src/api/text.js"

/**
 * Percent-encodes text for a URL; a lone surrogate (which has no UTF-8 form) goes as U+FFFD, and
 * the raw lists below send its would-be bytes (`%ED%A0%80`) instead.
 */
export const encodeText = (text: string) =>
  encodeURIComponent(text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd"))

/** User ids a directory-per-user store must not take at face value, and a few it should. */
export const oddUserId: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "../x", "..", ".", "a/b", "a\\b", "%2e%2e", "%2F", "", " ", "a b", "x".repeat(300), "x".repeat(128), "x".repeat(129),
    "CON", "NUL", "aux.txt", "\u0000", "a\u0000b", "\u{1F600}", "caf\u00e9", "-leading", ".hidden", "_under", "a\nb",
    "FUZZ_USER_1", "fuzz_user_1 ", "store.db", ".control", "\ud800"
  ),
  fc.string({ unit: "binary", maxLength: 12 })
)

/** Strings that trip up text handling: astral, right-to-left, combining, NUL, lone surrogates, separators. */
export const oddUnicode: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "\u{1F600}\u{1F468}\u200D\u{1F469}\u200D\u{1F467}",
    "\u202Eevil\u202C \u0645\u0631\u062D\u0628\u0627 \u05E9\u05DC\u05D5\u05DD",
    `e${"\u0301".repeat(50)}`,
    "a\u0000b\u0000",
    "\ud800",
    "x\udfffy\ud83d",
    "\uFEFFbom",
    "line\u2028para\u2029",
    "\uFFFF\u{10FFFF}",
    "\u{1D573}\u{1D58A}\u{1D591}\u{1D591}\u{1D594}",
    "\uFDFA".repeat(20),
    "\t\r\n\f\v"
  ),
  fc.string({ unit: "binary", minLength: 1, maxLength: 64 }),
  fc.string({ unit: "grapheme-composite", minLength: 1, maxLength: 64 })
)

/** NUL (U+0000) alone, at either end, inside and repeated: PostgreSQL's text cannot hold it. */
export const nulText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("\u0000", "\u0000start", "end\u0000", "mid\u0000dle", "\u0000".repeat(64)),
  fc.tuple(fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 })).map(([before, after]) => `${before}\u0000${after}`)
)

/** Lone surrogates, high and low, alone, at either end, in reverse order, beside a valid pair: they have no UTF-8 form. */
export const loneSurrogate: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("\ud800", "\udbff", "\udc00", "\udfff", "ab\ud83d", "\ude00ab", "\ude00\ud83d", "\u{1F600}\ud800\u{1F600}", "\ud800\ud800"),
  fc.tuple(fc.string({ maxLength: 20 }), fc.integer({ min: 0xd800, max: 0xdfff })).map(([text, unit]) => `${text}${String.fromCharCode(unit)}`)
)

/** `bytes` of distinct made-up words: as many lexemes as such a size can hold, the most a word index is asked to keep. */
const distinctWords = (bytes: number) => {
  const words: Array<string> = []
  for (let i = 0, size = 0; size + 9 <= bytes; i++, size += 9) words.push(`w${i.toString(36).padStart(7, "q")}`)
  return words.join(" ")
}

/**
 * One field as large as a turn may be, one byte over it, and well over what PostgreSQL can index
 * in one row (1 MiB of lexemes), as distinct words or one repeated character; each no larger
 * than fits the body limit, so that it reaches the schema rather than the 413.
 */
export const hugeField = (maxBodyBytes: number): fc.Arbitrary<string> =>
  fc.tuple(fc.constantFrom(MAX_CONTENT_BYTES, MAX_CONTENT_BYTES + 1, 1_300_000), fc.constantFrom("words", "a", "\u00e9"))
    .map(([bytes, unit]) => {
      const size = Math.min(bytes, maxBodyBytes - 4096)
      return unit === "words" ? distinctWords(size) : unit.repeat(Math.floor(size / Buffer.byteLength(unit)))
    })

/** How many times `unit` repeats to weigh about `bytes` once written as JSON. */
const repeatsFor = (unit: string, bytes: number) =>
  Math.max(1, Math.floor(bytes / Buffer.byteLength(JSON.stringify(unit).slice(1, -1))))

/** Strings of 4 KiB to 1 MiB (as JSON), of one repeated unit. */
export const hugeString: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom("a", "\u00e9", "\u{1F600}", "\u0000", " ", "\ud800", "\\"), fc.constantFrom(4096, 65_536, 200_000, 300_000, 1_048_576))
  .map(([unit, bytes]) => unit.repeat(repeatsFor(unit, bytes)))

/** JSON text nested `depth` levels deep, closed or not. */
export const deepJsonText: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom(64, 1000, 10_000, 100_000), fc.constantFrom("array", "object", "mixed"), fc.boolean())
  .map(([depth, shape, closed]) => {
    const open = shape === "array" ? "[" : shape === "object" ? "{\"a\":" : "[{\"a\":"
    const close = shape === "array" ? "]" : shape === "object" ? "}" : "}]"
    return `${open.repeat(depth)}1${closed ? close.repeat(depth) : ""}`
  })

/** Text that is not JSON, or JSON at its edges (duplicate keys, huge numbers, BOM). */
export const malformedJsonText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "", "{", "}", "{\"user_id\": }", "{\"user_id\": \"fuzz_user_1\",}", "{'user_id': 'fuzz_user_1'}", "{\"user_id\": NaN}",
    "{\"user_id\": \"fuzz_user_1\" /* c */}", "\uFEFF{}", "\u0000", "null", "undefined", "{\"a\":1}{\"a\":2}", "[1,,2]",
    "{\"user_id\": \"fuzz_user_1\", \"user_id\": 7}", "1".repeat(10_000), "{\"top_k\": 1e99999}", "{\"a\": \"\\u12\"}",
    "{\"a\": \"\\ud800\"}", "{\"a\": \"\u0001\"}", "\"\\", "{\"__proto__\": {\"polluted\": true}}", "{\"constructor\": {\"prototype\": {}}}"
  ),
  fc.string({ unit: "binary", maxLength: 80 })
)

/** Query values that are not the number, boolean or id a parameter wants. */
export const oddQueryValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "NaN", "-1", "-0", "0", "1e999", "0x10", "99999999999999999999999", "", "%20", "5.5", "Infinity", "%D9%A1%D9%A2",
    "true", "%5B%5D", "%7B%7D", "%zz", "%", "%E0%A4%A", "%ED%A0%80", "%C0%AE", "a%00b", "%F0%9F%98%80", "x".repeat(4000), "+", "null"
  ),
  oddUnicode.map(encodeText)
)

/** Query parameter names no operation declares, some aimed at object prototypes and array syntax. */
export const unknownQueryName: fc.Arbitrary<string> = fc.constantFrom("unknown", "__proto__", "constructor", "user_id%5B%5D", "a%5Bb%5D", "", "%00")

/** Path ids as sent on the wire (already encoded where they should be). */
export const oddPathId: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "..", ".", "%2e%2e", "%2E", "a%2Fb", "a/b", "", "%00", "%zz", "%", "x".repeat(5000), "%F0%9F%98%80", "~", "'", ";x=y",
    "*", "%20", "+", "%2F", "%5C", "%ED%A0%80", "%C0%AE%C0%AE", "null", "undefined", "0", "-1"
  ),
  fc.uuid(),
  fc.string({ unit: "binary", minLength: 1, maxLength: 40 }).map(encodeText)
)

/** Content types a JSON body might come with, right and wrong. */
export const contentType: fc.Arbitrary<string | undefined> = fc.constantFrom(
  undefined, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json; charset=utf-16",
  "application/json; charset=latin1", "application/vnd.api+json", "APPLICATION/JSON", "application/jsonx", "application/xml", "*/*", "",
  ";;;"
)

/** Credentials that must not let a request through (the key given is the right one). */
export const badCredentials = (apiKey: string): fc.Arbitrary<Record<string, string>> =>
  fc.constantFrom<Record<string, string>>(
    {},
    { authorization: "Bearer wrong-key" },
    { authorization: "Bearer " },
    { authorization: "Basic dXNlcjpwYXNz" },
    { authorization: apiKey },
    { authorization: `Bearer ${apiKey}x` },
    { authorization: `Bearer ${"k".repeat(8000)}` },
    { authorization: "Bearer cl\u00e9" },
    { "x-api-key": "wrong-key" },
    { "x-api-key": "" },
    { "x-api-key": `${apiKey} ` }
  )

/** Credentials that should work, in each documented form. */
export const goodCredentials = (apiKey: string): fc.Arbitrary<Record<string, string>> =>
  fc.constantFrom<Record<string, string>>({ authorization: `Bearer ${apiKey}` }, { "x-api-key": apiKey })

/** Methods Node's parser accepts, for the paths that do not serve them (CONNECT tunnels rather than asks). */
export const anyMethod: fc.Arbitrary<string> = fc.constantFrom(...NodeHttp.METHODS.filter((method) => method !== "CONNECT"))
