import { describe, expect, it } from "@effect/vitest"
import { analyseQuery } from "../src/retrieval/query.js"
import { DOCUMENT_COUNT_CAP, selectiveTerms } from "../src/storage/lexicalTerms.js"
import { ftsExpression } from "../src/storage/sqlite/user/recall/lexical.js"

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

  it("reads the same dates from the same query however many queries came before", () => {
    const queries = ["May 8, 2023 and 9 June 2022", "July 2021", "8 May 2023", "May 8, 2023 and 9 June 2022"]
    const first = queries.map((query) => analyseQuery(query).timePrefixes)
    expect(queries.map((query) => analyseQuery(query).timePrefixes)).toEqual(first)
    expect(first[0]).toEqual(["2022-06-09", "2023-05-08"])
    expect(first[3]).toEqual(first[0])
  })

  it("quotes every term, so none is read as an FTS5 operator", () => {
    expect(ftsExpression(["near", "or", "a\"b"])).toBe("\"near\" OR \"or\" OR \"ab\"")
  })
})

describe("selective terms", () => {
  const frequencies: Record<string, number> = { caroline: 60_000, went: 30_000, lgbtq: 40, support: 900, group: 4_000, camping: 2_500 }
  const frequencyOf = (term: string) => frequencies[term] ?? 0

  it("takes the rarest terms while the documents they match stay within the budget", () => {
    expect(selectiveTerms(["caroline", "went", "lgbtq", "support", "group"], frequencyOf)).toEqual(["lgbtq", "support"])
    expect(selectiveTerms(["camping", "support", "lgbtq"], frequencyOf)).toEqual(["lgbtq", "support", "camping"])
  })

  it("keeps every term of a small index, up to five", () => {
    expect(selectiveTerms(["a", "b", "c", "d", "e", "f"], () => 3)).toEqual(["a", "b", "c", "d", "e"])
  })

  it("always keeps the rarest term, and counts unknown terms as rare", () => {
    expect(selectiveTerms(["caroline", "went"], frequencyOf)).toEqual(["went"])
    expect(selectiveTerms(["zebra", "caroline"], frequencyOf)).toEqual(["zebra"])
  })

  it("selects the same with counts stopped at the cap, unless every term reaches it", () => {
    const capped = (term: string) => Math.min(DOCUMENT_COUNT_CAP, frequencyOf(term))
    for (const query of [["caroline", "went", "lgbtq", "support", "group"], ["camping", "support", "lgbtq"], ["caroline", "group", "camping"], ["went", "zebra"]]) {
      expect(selectiveTerms(query, capped)).toEqual(selectiveTerms(query, frequencyOf))
    }
    expect(selectiveTerms(["caroline", "went"], capped)).not.toEqual(selectiveTerms(["caroline", "went"], frequencyOf))
  })
})
