import { describe, expect, it } from "@effect/vitest"
import { respond } from "../scripts/stubs/brain.js"
import { stubEmbedding } from "../scripts/stubs/embedding.js"

// The reply schemas as the stub receives them; only the top-level property names matter to the brain.
const schemaWith = (...properties: ReadonlyArray<string>) => ({
  type: "object",
  properties: Object.fromEntries(properties.map((name) => [name, {}])),
  required: properties,
  additionalProperties: false
})

const ask = (properties: ReadonlyArray<string>, input: unknown) =>
  respond({ system: "", user: JSON.stringify(input), schema: schemaWith(...properties) })

interface Fact {
  readonly statement: string
  readonly kind: string
  readonly confidence: number
  readonly occurred: string
  readonly source_turns: ReadonlyArray<number>
  readonly entities: ReadonlyArray<{ readonly name: string; readonly role: string }>
  readonly predicate: string
}

const extract = (turns: ReadonlyArray<{ turn: number; role: string; text: string }>, session_time = "2023-05-08T14:30:00") =>
  (ask(["facts"], { session_id: "s1", session_time, turns }) as { facts: ReadonlyArray<Fact> }).facts

describe("the stub LLM's brain", () => {
  describe("extraction", () => {
    it("keeps the user's statements, rewritten about the user, and drops questions and small talk", () => {
      const facts = extract([{
        turn: 1,
        role: "user",
        text: "Hi! I live in Paris. Do you like Paris? Thanks for the help. Sounds good to me. Ok. My sister Anna lives in Rome."
      }])
      expect(facts.map((fact) => fact.statement)).toEqual([
        "The user lives in Paris.",
        "The user's sister Anna lives in Rome."
      ])
      expect(facts[0]).toEqual({
        statement: "The user lives in Paris.",
        kind: "state",
        confidence: 0.9,
        occurred: "",
        source_turns: [1],
        entities: [{ name: "user", role: "subject" }, { name: "Paris", role: "location" }],
        predicate: "lives_in"
      })
      expect(facts[1]?.entities).toEqual([
        { name: "user", role: "subject" },
        { name: "Anna", role: "object" },
        { name: "Rome", role: "location" }
      ])
    })

    it("a pleasantry opener is dropped when the rest still says something about the user", () => {
      expect(extract([{ turn: 4, role: "user", text: "Thanks, I moved to New York yesterday." }])).toEqual([{
        statement: "The user moved to New York yesterday.",
        kind: "event",
        confidence: 0.9,
        occurred: "2023-05-07",
        source_turns: [4],
        entities: [{ name: "user", role: "subject" }, { name: "New York", role: "location" }],
        predicate: "moved_to"
      }])
    })

    it("classifies kinds, lowers confidence when the user hedges, and names the predicate", () => {
      const facts = extract([{
        turn: 2,
        role: "user",
        text: "I really love hiking in the Alps. I think I might get a dog. I'm a teacher. I've got a red bike. I'd like to visit Japan."
      }])
      expect(facts.map(({ confidence, kind, predicate, statement }) => ({ statement, kind, confidence, predicate }))).toEqual([
        { statement: "The user really loves hiking in the Alps.", kind: "preference", confidence: 0.9, predicate: "loves" },
        { statement: "The user thinks the user might get a dog.", kind: "fact", confidence: 0.6, predicate: "thinks" },
        { statement: "The user is a teacher.", kind: "state", confidence: 0.9, predicate: "is" },
        { statement: "The user has got a red bike.", kind: "state", confidence: 0.9, predicate: "has" },
        { statement: "The user would like to visit Japan.", kind: "preference", confidence: 0.9, predicate: "like_to" }
      ])
    })

    it("takes from the assistant only the sentences that restate the user (\"You ...\")", () => {
      const facts = extract([
        { turn: 1, role: "user", text: "Can you remind me what I have?" },
        { turn: 2, role: "assistant", text: "That sounds lovely. You have two cats. You're a nurse at St Mary's Hospital. Would you like tips?" },
        { turn: 3, role: "system", text: "I am the system." }
      ])
      expect(facts.map((fact) => [fact.statement, fact.source_turns])).toEqual([
        ["The user has two cats.", [2]],
        ["The user is a nurse at St Mary's Hospital.", [2]]
      ])
      expect(facts[1]?.entities).toContainEqual({ name: "St Mary's Hospital", role: "location" })
    })

    it("resolves dates against the session's local date", () => {
      const cases: ReadonlyArray<readonly [string, string]> = [
        ["I went there today.", "2023-01-03"],
        ["I went there yesterday.", "2023-01-02"],
        ["I went there last week.", "2022-12-27"],
        ["I went there last month.", "2022-12"],
        ["I went there last year.", "2022"],
        ["I went there in 2021.", "2021"],
        ["I went there in May 2021.", "2021-05"],
        ["I went there May 2021.", "2021-05"],
        ["I went there on May 8.", "2023-05-08"],
        ["I went there on 8 May.", "2023-05-08"],
        ["I went there on 2021-05-08.", "2021-05-08"],
        ["I may go there someday.", ""]
      ]
      for (const [text, occurred] of cases) {
        const facts = extract([{ turn: 1, role: "user", text }], "2023-01-03T09:00:00")
        expect([text, facts[0]?.occurred]).toEqual([text, occurred])
      }
    })
  })

  describe("reconciliation", () => {
    it("decides duplicate, update, contradict or add, one decision per fact in order", () => {
      const candidates = [
        { id: "m1", statement: "The user lives in Paris.", kind: "state", valid_from: "2022" },
        { id: "m2", statement: "The user eats meat.", kind: "fact", valid_from: "" }
      ]
      const reply = ask(["decisions"], {
        session_id: "s2",
        facts: [
          { index: 0, statement: "the user lives in  Paris", candidates },
          { index: 1, statement: "The user lives in Berlin.", candidates },
          { index: 2, statement: "The user eats meat no longer.", candidates },
          { index: 3, statement: "The user owns a boat.", candidates },
          { index: 4, statement: "The user has a cat.", candidates: [] }
        ]
      })
      expect(reply).toEqual({
        decisions: [
          { index: 0, action: "duplicate", target_id: "m1", reason: "same statement as m1" },
          { index: 1, action: "update", target_id: "m1", reason: "same subject and relation as m1, new value" },
          { index: 2, action: "contradict", target_id: "m2", reason: "same subject and relation as m2, opposite polarity" },
          { index: 3, action: "add", target_id: "", reason: "no current fact has the same subject and relation" },
          { index: 4, action: "add", target_id: "", reason: "no current fact has the same subject and relation" }
        ]
      })
    })
  })

  describe("planning", () => {
    const planFor = (searches: ReadonlyArray<{ query: string; found: number }>, evidence: ReadonlyArray<{ id: string; text: string; date: string }>) =>
      ask(["action", "query", "reason"], {
        question: "Where does the user live now?",
        current_date: "2023-05-08",
        step: searches.length,
        max_steps: 4,
        searches,
        evidence
      }) as { action: string; query: string; reason: string }

    it("searches the question, then its content words, then answers", () => {
      expect(planFor([], [])).toMatchObject({ action: "search", query: "Where does the user live now?" })
      expect(planFor([{ query: "Where does the user live now?", found: 0 }], [])).toMatchObject({ action: "search", query: "live now" })
      const twice = [{ query: "Where does the user live now?", found: 0 }, { query: "live now", found: 0 }]
      expect(planFor(twice, [])).toMatchObject({ action: "answer", query: "" })
    })

    it("answers rather than repeat a search when the question has no content words", () => {
      const reply = ask(["action", "query", "reason"], {
        question: "What is it?",
        current_date: "2023-05-08",
        step: 1,
        max_steps: 4,
        searches: [{ query: "What is it?", found: 0 }],
        evidence: []
      })
      expect(reply).toMatchObject({ action: "answer", query: "" })
    })

    it("answers as soon as there is evidence", () => {
      expect(planFor([{ query: "x", found: 1 }], [{ id: "m1", text: "The user lives in Paris.", date: "2022" }]))
        .toMatchObject({ action: "answer", query: "" })
    })
  })

  describe("reading", () => {
    const readWith = (question: string, evidence: ReadonlyArray<{ id: string; text: string; date: string }>) =>
      ask(["answer", "citations", "insufficient", "missing_information"], { question, current_date: "2023-05-08", evidence })

    it("answers with the line sharing most content words, citing those at least half as good", () => {
      const evidence = [
        { id: "m1", text: "The user bought a bike.", date: "2023-01-02" },
        { id: "m2", text: "The user lives in Paris.", date: "2022" },
        { id: "m3", text: "The user's sister lived in Paris for years.", date: "2020" },
        { id: "m4", text: "The user's favorite city is Rome.", date: "2021" },
        { id: "m5", text: "The user flew to Paris.", date: "2023-04-01" }
      ]
      // "live" meets "lives" and "lived"; m2 and m3 tie on both words, so the earlier one answers, and m5 has half.
      expect(readWith("Where did the user live in Paris?", evidence)).toEqual({
        answer: "The user lives in Paris.",
        citations: ["m2", "m3", "m5"],
        insufficient: false,
        missing_information: ""
      })
      // Four lines qualify; three are cited, best first.
      expect(readWith("Which city does the user live in, Paris or Rome?", evidence)).toEqual({
        answer: "The user lives in Paris.",
        citations: ["m2", "m3", "m4"],
        insufficient: false,
        missing_information: ""
      })
    })

    it("says it does not know when no line shares a content word", () => {
      expect(readWith("What is the user's dog called?", [{ id: "m1", text: "The user lives in Paris.", date: "" }])).toEqual({
        answer: "I don't know.",
        citations: [],
        insufficient: true,
        missing_information: "nothing in memory mentions dog, called"
      })
    })
  })

  describe("profile", () => {
    it("summarises the last five facts, citing them", () => {
      const facts = Array.from({ length: 6 }, (_, i) => ({ id: `m${i}`, text: `Fact ${i}.`, date: "" }))
      expect(ask(["summary", "citations"], { entity: "user", facts })).toEqual({
        summary: "user: Fact 1.; Fact 2.; Fact 3.; Fact 4.; Fact 5.",
        citations: ["m1", "m2", "m3", "m4", "m5"]
      })
      expect(ask(["summary", "citations"], { entity: "Anna", facts: [] })).toEqual({ summary: "Anna: no current facts.", citations: [] })
    })
  })

  describe("robustness", () => {
    it("never throws: unknown schemas get {}, unreadable input an empty reply", () => {
      expect(ask(["weather"], { city: "Paris" })).toEqual({})
      expect(respond({ system: "", user: "not json", schema: {} })).toEqual({})
      expect(respond({ system: "", user: "{oops", schema: schemaWith("facts") })).toEqual({ facts: [] })
      expect(respond({ system: "", user: "[1, 2]", schema: schemaWith("decisions") })).toEqual({ decisions: [] })
      expect(ask(["facts"], { session_time: "not a date", turns: [{ turn: "x", role: "user", text: 42 }, null, { role: "user", text: "I went there yesterday." }] }))
        .toMatchObject({ facts: [{ statement: "The user went there yesterday.", occurred: "", source_turns: [2] }] })
      expect(ask(["answer"], { question: null, evidence: "none" })).toMatchObject({ answer: "I don't know.", insufficient: true })
    })

    it("embeds words that name Object.prototype's members like any other word", () => {
      const vector = stubEmbedding("constructor toString __proto__", 16)
      expect(vector).toHaveLength(16)
      expect(vector.every(Number.isFinite)).toBe(true)
    })
  })
})
