import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer, Option } from "effect"
import type { FactRow, TurnRow } from "../../src/domain/records.js"
import { Embedder } from "../../src/llm/Embedder.js"
import { MemoryReads } from "../../src/services/memories/MemoryReads.js"
import { Retrieval } from "../../src/services/recall/Retrieval.js"
import type { RecallLegs } from "../../src/storage/UserStore.js"
import { fakeUserStore } from "../support/fakeStorage.js"

const factRow = (id: string, content: string, overrides: Partial<FactRow> = {}): FactRow => ({
  seq: 1, fact_id: id, content, kind: "fact", status: "active", session_id: "s1", occurred_at: null, valid_from: null, valid_until: null,
  confidence: 1, metadata: "{}", agent_id: null, run_id: null, project_id: null, superseded_by: null, ...overrides
})

const turnRow = (id: string, content: string): TurnRow => ({
  seq: 1, turn_id: id, session_id: "s1", position: 1, role: "user", content, agent_id: null, run_id: null, project_id: null, session_time: null
})

const NO_LEGS: RecallLegs = {
  lexicalFacts: [], lexicalTurns: [], vector: Either.left("no vectors in this store"), entityFacts: [], datedFacts: [], datedTurns: [], neighbours: []
}

const NO_EMBEDDER = Layer.succeed(Embedder, Embedder.make({ active: Option.none(), reason: "no embedding provider is configured", remedy: Option.none(), local: Option.none() }))

describe("domain services over a test implementation of the storage port", () => {
  it.effect("search fuses the legs the store returns: agreement ranks first, a turn saying a fact's words merges into it", () =>
    Effect.gen(function*() {
      const retrieval = yield* Retrieval
      const { degraded, items } = yield* retrieval.search({ user_id: "alice", query: "dog", top_k: 5 })
      expect(items.map((item) => item.evidence_id)).toEqual(["ev_fact:both", "ev_fact:lexical", "ev_fact:entity"])
      expect(items[1]!.routes.map((route) => route.route)).toEqual(["lexical_facts", "lexical_turns"])
      expect(degraded.map((entry) => entry.details)).toEqual([{ channel: "fact_events" }, { channel: "raw_turns" }])
      expect(degraded[0]!.message).toBe("no vectors in this store — vector route for fact_events skipped")
    }).pipe(Effect.provide(Retrieval.Default.pipe(Layer.provide(NO_EMBEDDER), Layer.provide(fakeUserStore({
      recall: () =>
        Effect.succeed(Option.some({
          ...NO_LEGS,
          lexicalFacts: [factRow("lexical", "Alice has a dog"), factRow("both", "The dog is called Rex")],
          lexicalTurns: [{ row: turnRow("t1", "alice has a DOG!"), score: 1 }],
          entityFacts: [factRow("both", "The dog is called Rex"), factRow("entity", "Rex is brown")]
        })),
      provenance: () => Effect.succeed({ sources: [], roles: [] })
    }))))))

  it.effect("a memory read hides what the store holds archived or stamped outside the requested scope", () =>
    Effect.gen(function*() {
      const reads = yield* MemoryReads
      expect(Option.map(yield* reads.get("current", { user_id: "alice" }), (memory) => memory.id)).toEqual(Option.some("current"))
      expect(yield* reads.get("archived", { user_id: "alice" })).toEqual(Option.none())
      expect(yield* reads.get("current", { user_id: "alice", agent_id: "a2" })).toEqual(Option.none())
    }).pipe(Effect.provide(MemoryReads.Default.pipe(Layer.provide(fakeUserStore({
      fact: (_userId, factId) =>
        Effect.succeed(Option.some(factRow(factId, "text", factId === "archived" ? { status: "archived" } : { agent_id: "a1" })))
    }))))))
})
