import { describe, expect, it } from "@effect/vitest"
import { profileScopes } from "../src/domain/profileScopes.js"
import type { FactRow } from "../src/domain/records.js"

const fact = (id: string, agent: string | null, run: string | null = null): FactRow => ({
  seq: 0,
  fact_id: id,
  content: id,
  kind: "fact",
  status: "active",
  session_id: null,
  occurred_at: null,
  valid_from: null,
  valid_until: null,
  confidence: 1,
  metadata: "{}",
  agent_id: agent,
  run_id: run,
  project_id: null,
  superseded_by: null
})

const ids = (groups: ReturnType<typeof profileScopes>) => groups.map(({ facts, scope }) => ({ scope: [scope.agent_id, scope.run_id], facts: facts.map((row) => row.fact_id) }))

describe("profile scopes", () => {
  it("one scope per stamping, each with the facts its readers may all see", () => {
    const facts = [fact("a1", "a1"), fact("open", null), fact("a2", "a2"), fact("a1r1", "a1", "r1")]
    expect(ids(profileScopes(facts))).toEqual([
      { scope: ["a1", null], facts: ["a1", "open"] },
      { scope: [null, null], facts: ["open"] },
      { scope: ["a2", null], facts: ["open", "a2"] },
      { scope: ["a1", "r1"], facts: ["a1", "open", "a1r1"] }
    ])
  })

  it("facts all of one scope make one profile of that scope; none make none", () => {
    expect(ids(profileScopes([fact("x", "a1"), fact("y", "a1")]))).toEqual([{ scope: ["a1", null], facts: ["x", "y"] }])
    expect(profileScopes([])).toEqual([])
  })

  it("a fact stamped with a run but no agent is not told to a reader of another run", () => {
    const groups = profileScopes([fact("r1", null, "r1"), fact("a1", "a1")])
    expect(ids(groups)).toEqual([{ scope: [null, "r1"], facts: ["r1"] }, { scope: ["a1", null], facts: ["a1"] }])
  })
})
