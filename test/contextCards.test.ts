import { describe, expect, it } from "@effect/vitest"
import { cardLine, toCard } from "../src/retrieval/contextCards.js"
import type { EvidenceItem } from "../src/retrieval/evidence.js"

describe("context card lines", () => {
  it("print values as the reference service does: Python literals, strings quoted inside lists and dicts, line breaks escaped", () => {
    expect(cardLine({ id: "m1", current: true, stale: false, score: 0.5, until: null })).toBe("- id=m1 current=True stale=False score=0.5 until=None")
    expect(cardLine({ tags: ["a", 2, false], entity: { name: "Ana", age: 31, role: null } }))
      .toBe("- tags=['a', 2, False] entity={'name': 'Ana', 'age': 31, 'role': None}")
    expect(cardLine({ session: "a\nb", parts: ["c\rd", { e: "f\u2028g" }] })).toBe("- session=a\\nb parts=['c\\rd', {'e': 'f\\u2028g'}]")
  })
})

const evidence = (fields: Partial<EvidenceItem>): EvidenceItem => ({
  evidence_id: "ev_fact:fact_1",
  fact_id: "fact_1",
  support_text: "Ana moved to Lisbon.",
  source_session_id: "s1",
  source_turn_id: "s1_turn_2",
  source_role: "user",
  session_time: "2024-03-05",
  occurred_start: null,
  kind: "event",
  source_type: "fact",
  status: "active",
  predicate_canonical: null,
  routes: [],
  rank: { tier: 1, score: 1 },
  ...fields
})

describe("context cards", () => {
  it("give every field that has a value, in the contract's order, and leave the empty ones out", () => {
    const card = toCard(evidence({
      predicate_raw: "Ana lives in Lisbon",
      entity_roles: { subject: ["Ana"], place: ["Lisbon", "Portugal"] },
      valid_from: "2024-03",
      source_role: "assistant",
      status: "superseded",
      version_status: "superseded"
    }))
    expect(Object.entries(card)).toEqual([
      ["evidence_id", "ev_fact:fact_1"],
      ["support", "Ana moved to Lisbon."],
      ["predicate", "Ana lives in Lisbon"],
      ["entities", "place=Lisbon|place=Portugal"],
      ["date", "2024-03"],
      ["source", "s1/s1_turn_2"],
      ["role", "assistant"],
      ["status", "superseded"],
      ["version_status", "superseded"],
      ["expanded", false]
    ])
  })

  it("leave out a predicate that repeats the support, the user's role, an active status, a current version and what is missing", () => {
    const card = toCard(evidence({
      predicate_raw: "Ana  moved to\nLisbon.",
      source_turn_id: null,
      session_time: null,
      version_status: "current"
    }))
    expect(Object.entries(card)).toEqual([["evidence_id", "ev_fact:fact_1"], ["support", "Ana moved to Lisbon."], ["expanded", false]])
  })
})
