import { describe, expect, it } from "@effect/vitest"
import { analyseQuery, ftsExpression, selectiveTerms } from "../src/retrieval/query.js"

describe("query analysis", () => {
  it("keeps content words and drops function words", () => {
    expect(analyseQuery("When did Caroline go to the LGBTQ support group?").terms).toEqual(["caroline", "go", "lgbtq", "support", "group"])
  })

  it("reads the dates a question names, most precise first", () => {
    expect(analyseQuery("What happened on 8 May 2023?").timePrefixes).toEqual(["2023-05-08"])
    expect(analyseQuery("Plans for June 2023 and 2024-01-15").timePrefixes).toEqual(["2024-01-15", "2023-06"])
    expect(analyseQuery("Anything from 2022?").timePrefixes).toEqual(["2022"])
    expect(analyseQuery("no date here").timePrefixes).toEqual([])
  })

  it("quotes every term, so none is read as an FTS5 operator", () => {
    expect(ftsExpression(["near", "or", "a\"b"])).toBe("\"near\" OR \"or\" OR \"ab\"")
  })
})

describe("selective terms", () => {
  const frequencies: Record<string, number> = { caroline: 60_000, went: 30_000, lgbtq: 40, support: 900, group: 4_000 }
  const frequencyOf = (term: string) => frequencies[term] ?? 0

  it("leaves out terms too common to rank by in a large index, rarest first", () => {
    expect(selectiveTerms(["caroline", "went", "lgbtq", "support", "group"], frequencyOf, 100_000)).toEqual(["lgbtq", "support"])
  })

  it("keeps every term of a small index", () => {
    expect(selectiveTerms(["caroline", "lgbtq"], (t) => (t === "caroline" ? 300 : 2), 600)).toEqual(["lgbtq", "caroline"])
  })

  it("falls back to the two rarest when every term is common, and keeps unknown terms", () => {
    expect(selectiveTerms(["caroline", "went", "group"], frequencyOf, 50_000)).toEqual(["group", "went"])
    expect(selectiveTerms(["zebra", "caroline"], frequencyOf, 100_000)).toEqual(["zebra"])
  })
})
