import { describe, expect, it } from "@effect/vitest"
import type { Scored, TurnRow } from "../src/domain/records.js"
import { NEIGHBOURHOOD, rankConversationTurns, speakerOf } from "../src/retrieval/conversationTurns.js"

let nextSeq = 1
const turn = (content: string, position: number, sessionId = "s1"): TurnRow => ({
  seq: nextSeq++,
  turn_id: `${sessionId}_turn_${position}`,
  session_id: sessionId,
  position,
  role: "user",
  content,
  agent_id: null,
  run_id: null,
  project_id: null,
  session_time: null
})

const rank = (query: string, lexical: ReadonlyArray<Scored<TurnRow>>, neighbours: ReadonlyArray<TurnRow> = []) =>
  rankConversationTurns({ query, lexical, neighbours, neighbourhood: NEIGHBOURHOOD })

const contents = (ranked: ReturnType<typeof rankConversationTurns>) => ranked.map((item) => item.row.content)

describe("the speaker of a transcript line", () => {
  it("is the capitalised name of one to three words before a colon, normalized", () => {
    expect(speakerOf("Caroline: I went to the parade")).toBe("caroline")
    expect(speakerOf("  Dr. Ada Lane: the results are in")).toBe("dr ada lane")
    expect(speakerOf("José: ¿qué tal?")).toBe("jose")
  })

  it("is not read from a line that does not start with a name and a colon", () => {
    expect(speakerOf("I told her: come along")).toBeNull()
    expect(speakerOf("note: lower case is no name")).toBeNull()
    expect(speakerOf("Caroline:no space after the colon")).toBeNull()
    expect(speakerOf("Meeting at 10:30 tomorrow")).toBeNull()
    expect(speakerOf("The Four Words Here: too long for a name")).toBeNull()
    expect(speakerOf("plain text")).toBeNull()
  })
})

describe("ranking a conversation's turns", () => {
  it("counts a turn spoken by a person the query names double", () => {
    const melanie = turn("Melanie: we went camping at the lake", 1)
    const caroline = turn("Caroline: camping sounds lovely", 5)
    const ranked = rank("Where did Caroline go camping?", [{ row: melanie, score: 3 }, { row: caroline, score: 2 }])
    expect(contents(ranked)).toEqual([caroline.content, melanie.content])
    expect(ranked[0]!.score).toBe(4)
    // Nobody named: bm25 decides.
    expect(contents(rank("Who went camping?", [{ row: melanie, score: 3 }, { row: caroline, score: 2 }]))).toEqual([melanie.content, caroline.content])
  })

  it("knows a speaker by the first word of the name that is no title or function word, and leaves turns without a speaker as bm25 ranks them", () => {
    const ada = turn("Dr. Ada Lane: the sample is ready", 1)
    const plain = turn("the sample was sent yesterday", 5)
    const lexical = [{ row: plain, score: 3 }, { row: ada, score: 2 }]
    expect(contents(rank("what did Ada say about the sample", lexical))).toEqual([ada.content, plain.content])
    expect(rank("what did Ada say about the sample", lexical)[1]!.score).toBe(3)
    // "Dr" tells no one apart.
    expect(contents(rank("what did the dr say about the sample", lexical))).toEqual([plain.content, ada.content])
  })

  it("names no speaker by a single letter or a function word", () => {
    const answer = turn("A: a sample of the soil", 1)
    const host = turn("The Host: the sample is in", 5)
    const plain = turn("the sample was sent", 9)
    const lexical = [{ row: plain, score: 3 }, { row: answer, score: 2 }, { row: host, score: 2 }]
    expect(contents(rank("was a sample taken of the soil", lexical))[0]).toBe(plain.content)
    expect(contents(rank("what did the host say of the sample", lexical))[0]).toBe(host.content)
    // A query of no words names nobody, a speaker without a name word included.
    expect(contents(rank("?!", lexical))[0]).toBe(plain.content)
  })

  it("has the best turns lend a share of their score to the turns within two of them in their session", () => {
    const question = turn("Melanie: what did you do this weekend?", 1)
    const answer = turn("Caroline: I went to a pottery class", 2)
    const seed = turn("Melanie: pottery is so relaxing", 3)
    const near = turn("Caroline: it really is", 4)
    const far = turn("Caroline: see you soon", 6)
    const otherSession = turn("Caroline: hello again", 4, "s2")
    const ranked = rank("pottery", [{ row: seed, score: 5 }], [question, answer, seed, near, far, otherSession])
    expect(contents(ranked)).toEqual([seed.content, question.content, answer.content, near.content])
    expect(ranked.slice(1).map((item) => item.score)).toEqual([1.5, 1.5, 1.5])
    expect(ranked[0]!.routes).toEqual([{ route: "lexical_turns", rank: 1, score: 5 }])
    expect(ranked[1]!.routes).toEqual([{ route: "neighbourhood", rank: 1, score: 1.5 }])
  })

  it("ranks the neighbourhood route by the score lent, and a named speaker's seed lends double", () => {
    const byMelanie = turn("Melanie: pottery with the kids", 1, "s6")
    const nearMelanie = turn("Caroline: how lovely", 2, "s6")
    const byCaroline = turn("Caroline: pottery class today", 1, "s7")
    const nearCaroline = turn("Melanie: show me!", 2, "s7")
    const ranked = rank("what pottery does Melanie make", [{ row: byCaroline, score: 4 }, { row: byMelanie, score: 3 }], [nearMelanie, nearCaroline])
    const routeOf = (row: TurnRow) => ranked.find((item) => item.row === row)!.routes
    // Melanie's seed lends 0.3 of 3, doubled; Caroline's 0.3 of 4; a turn by Melanie counts its share double again.
    expect(routeOf(nearMelanie)).toEqual([{ route: "neighbourhood", rank: 1, score: 1.8 }])
    expect(routeOf(nearCaroline)).toEqual([{ route: "neighbourhood", rank: 2, score: 1.2 }])
    expect(ranked.find((item) => item.row === nearCaroline)!.score).toBeCloseTo(2.4)
  })

  it("adds what several seeds lend to a lower lexical turn's own score, and counts the named speaker's share double", () => {
    const seeds = Array.from({ length: NEIGHBOURHOOD.seeds }, (_, i) => ({ row: turn(`Melanie: pottery ${i}`, i * 2, "s4"), score: 10 - i }))
    // Between the first two seeds, found by its words too but ranked below every seed.
    const between = turn("Caroline: I love the pottery there too", 1, "s4")
    const ranked = rank("what pottery did Caroline make", [...seeds, { row: between, score: 1 }], [between])
    const middle = ranked.find((item) => item.row === between)!
    // Its own 1, plus 0.3 of 10 and of 9 from the seeds either side, doubled for its speaker.
    expect(middle.score).toBeCloseTo(2 * (1 + 0.3 * 10 + 0.3 * 9))
    expect(middle.routes).toEqual([
      { route: "lexical_turns", rank: NEIGHBOURHOOD.seeds + 1, score: 1 },
      { route: "neighbourhood", rank: 1, score: 5.7 }
    ])
    expect(ranked[0]!.row).toBe(between)
  })

  it("leaves a seed its own score: seeds side by side do not lift each other", () => {
    const first = turn("pottery class", 1, "s5")
    const second = turn("the pottery teacher", 2, "s5")
    const ranked = rank("pottery", [{ row: first, score: 4 }, { row: second, score: 3 }], [first, second])
    expect(ranked.map((item) => item.score)).toEqual([4, 3])
    expect(ranked.every((item) => item.routes.every((route) => route.route === "lexical_turns"))).toBe(true)
  })

  it("lends only from the first seeds: a lower lexical turn lends nothing", () => {
    const lexical = Array.from({ length: NEIGHBOURHOOD.seeds + 1 }, (_, i) => ({ row: turn(`turn ${i}`, i * 10, "s3"), score: 10 - i }))
    const nearLast = turn("next to the lowest", NEIGHBOURHOOD.seeds * 10 + 1, "s3")
    const nearFirst = turn("next to the best", 1, "s3")
    const ranked = rank("turn", lexical, [nearLast, nearFirst])
    expect(contents(ranked)).toContain(nearFirst.content)
    expect(contents(ranked)).not.toContain(nearLast.content)
  })
})
