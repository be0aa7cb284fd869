import { describe, expect, it } from "@effect/vitest"
import { ELISION, excerptRanges, hasWords, REDACTION, withoutMemories } from "../src/domain/excerpts.js"
import { rewriteTurns, scrubbedEvent, scrubbedMetadata } from "../src/storage/forgetting.js"

const TURN = "I live in Berlin with my partner Tomas. My bank PIN is 4417. I play the cello on Sundays."
const excerpts = (statement: string, text: string) => excerptRanges(statement, text).map(({ end, start }) => text.slice(start, end))

describe("a memory's words in its turn", () => {
  it("are the sentences sharing the statement's content words", () => {
    expect(excerpts("The user's bank PIN is 4417.", TURN)).toEqual(["My bank PIN is 4417."])
    expect(excerpts("The user lives in Berlin with their partner Tomas.", TURN)).toEqual(["I live in Berlin with my partner Tomas."])
    expect(excerpts("The user plays the cello on Sundays.", TURN)).toEqual(["I play the cello on Sundays."])
  })

  it("take every sentence sharing at least half as many words as the best", () => {
    const text = "My bank card is from Sparkasse. The PIN of my bank card is 4417. The bank is near. Nice weather today."
    expect(excerpts("The user's bank card PIN is 4417.", text)).toEqual(["My bank card is from Sparkasse.", "The PIN of my bank card is 4417."])
  })

  it("are every sentence when the turn is one sentence, or when no sentence shares a word", () => {
    expect(excerpts("The user's locker code is 9931.", "My locker code is 9931.")).toEqual(["My locker code is 9931."])
    expect(excerpts("The user is vegetarian.", "I stopped eating meat. Fish too.")).toEqual(["I stopped eating meat.", "Fish too."])
    expect(withoutMemories("I stopped eating meat. Fish too.", ["The user is vegetarian."], ELISION).text).toBe("[…]")
  })

  it("leave the markers a turn already holds where they are", () => {
    expect(excerpts("The user lives in Lyon.", "[redacted] I live in Lyon.")).toEqual(["I live in Lyon."])
    expect(withoutMemories("[redacted] I live in Lyon.", ["The user lives in Lyon."], ELISION).text).toBe("[redacted] […]")
  })

  it("end after the closing quotes and brackets that follow their full stop, curly ones too", () => {
    const text = "She wrote: \u201CMy PIN is 4417.\u201D I play the cello. (I live in Lyon.) Fine."
    expect(excerpts("The user's PIN is 4417.", text)).toEqual(["She wrote: \u201CMy PIN is 4417.\u201D"])
    expect(excerpts("The user lives in Lyon.", text)).toEqual(["(I live in Lyon.)"])
    expect(excerpts("The user's PIN is 4417.", "It\u2019s 4417.\u2019 Done.")).toEqual(["It\u2019s 4417.\u2019"])
  })

  it("end at a line's end as well as at a full stop, but not inside a number", () => {
    const text = "Rated it 4.5 stars\nMy PIN is 4417"
    expect(excerpts("The user's PIN is 4417", text)).toEqual(["My PIN is 4417"])
  })
})

describe("a turn without some of its memories", () => {
  it("has each passage replaced by the marker, neighbouring passages joined into one", () => {
    const purged = withoutMemories(TURN, ["The user's bank PIN is 4417."], REDACTION)
    expect(purged).toEqual({ text: "I live in Berlin with my partner Tomas. [redacted] I play the cello on Sundays.", removed: ["My bank PIN is 4417."] })
    const both = withoutMemories(TURN, ["The user's bank PIN is 4417.", "The user plays the cello on Sundays."], ELISION)
    expect(both.text).toBe("I live in Berlin with my partner Tomas. […]")
    expect(withoutMemories(TURN, [], ELISION)).toEqual({ text: TURN, removed: [] })
  })

  it("still says something only while words are left beside the markers", () => {
    expect(hasWords("[redacted] […]")).toBe(false)
    expect(hasWords("[…] I play the cello.")).toBe(true)
  })
})

describe("rewriting turns when memories are forgotten", () => {
  const stored = { seq: 7, content: TURN, recorded_content: null }
  const pin = { seq: 7, statement: "The user's bank PIN is 4417." }
  const cello = { seq: 7, statement: "The user plays the cello on Sundays." }

  it("elides archived memories from the text shown and keeps the recorded text beside it", () => {
    const { removed, rewrites } = rewriteTurns([stored], { purged: [], archived: [pin] })
    expect(rewrites).toEqual([{
      seq: 7,
      content: "I live in Berlin with my partner Tomas. […] I play the cello on Sundays.",
      recorded_content: TURN,
      embed: true
    }])
    expect(removed).toEqual([{ text: "My bank PIN is 4417.", marker: ELISION }])
  })

  it("redacts purged memories from the recorded text, and elides the archived ones from what is left", () => {
    const archived = { seq: 7, content: "I live in Berlin with my partner Tomas. My bank PIN is 4417. […]", recorded_content: TURN }
    const { rewrites } = rewriteTurns([archived], { purged: [pin], archived: [cello] })
    expect(rewrites).toEqual([{
      seq: 7,
      content: "I live in Berlin with my partner Tomas. [redacted] […]",
      recorded_content: "I live in Berlin with my partner Tomas. [redacted] I play the cello on Sundays.",
      embed: true
    }])
  })

  it("leaves unchanged turns out, and a turn with nothing left is not embedded again", () => {
    const locker = { seq: 8, content: "My locker code is 9931.", recorded_content: null }
    const { rewrites } = rewriteTurns([stored, locker], { purged: [{ seq: 8, statement: "The user's locker code is 9931." }], archived: [] })
    expect(rewrites).toEqual([{ seq: 8, content: "[redacted]", recorded_content: null, embed: false }])
  })

  it("takes the passages out of other memories' support texts, and the words out of events", () => {
    const removed = [{ text: "My bank PIN is 4417.", marker: REDACTION }]
    expect(JSON.parse(scrubbedMetadata(JSON.stringify({ support_text: TURN, kind: "x" }), removed)!)).toEqual({
      support_text: "I live in Berlin with my partner Tomas. [redacted] I play the cello on Sundays.",
      kind: "x"
    })
    expect(scrubbedMetadata(JSON.stringify({ support_text: "I play the cello." }), removed)).toBeUndefined()
    const event = { reason: "repeats: My bank PIN is 4417.", details: JSON.stringify({ action: "duplicate_merge", statement: "The user's PIN is 4417" }) }
    expect(scrubbedEvent(event, removed)).toEqual({ reason: "repeats: [redacted]", details: JSON.stringify({ action: "duplicate_merge" }) })
  })
})
