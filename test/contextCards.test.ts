import { describe, expect, it } from "@effect/vitest"
import { cardLine } from "../src/retrieval/contextCards.js"

describe("context card lines", () => {
  it("print values as the reference service does: Python literals, strings quoted inside lists and dicts, line breaks escaped", () => {
    expect(cardLine({ id: "m1", current: true, stale: false, score: 0.5, until: null })).toBe("- id=m1 current=True stale=False score=0.5 until=None")
    expect(cardLine({ tags: ["a", 2, false], entity: { name: "Ana", age: 31, role: null } }))
      .toBe("- tags=['a', 2, False] entity={'name': 'Ana', 'age': 31, 'role': None}")
    expect(cardLine({ session: "a\nb", parts: ["c\rd", { e: "f\u2028g" }] })).toBe("- session=a\\nb parts=['c\\rd', {'e': 'f\\u2028g'}]")
  })
})
