import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { newFactId } from "../../src/domain/ids.js"
import type { FactRow, NewFact, ScopeFilter, StaleEntity } from "../../src/domain/records.js"
import { UserStore } from "../../src/storage/UserStore.js"
import type { StorageBackend } from "./contract.js"
import { add, AUDIT, fact, NO_SCOPE, replacing, session, stored, writeSession } from "./fixtures.js"

const subject = (name: string) => ({ entities: [{ name, role: "subject" }] })

const profileOf = (entity: StaleEntity, summary: string, scope: ScopeFilter = NO_SCOPE): NewFact => ({
  factId: newFactId(),
  content: summary,
  kind: "profile",
  sessionId: null,
  occurredAt: null,
  validFrom: "2026-01-01",
  confidence: 1,
  metadata: { profile_of: entity.entity_id },
  scope,
  spanIds: [],
  entities: [{ name: entity.name, role: "subject" }],
  predicate: "profile"
})

const settlement = (entity: StaleEntity, profiles: ReadonlyArray<NewFact>, sources: ReadonlyArray<FactRow>) => ({
  entity,
  profiles: profiles.map((fact) => ({ fact, citations: [] })),
  sources: sources.map((row) => row.fact_id),
  audit: AUDIT
})

export const graphContract = (backend: StorageBackend) =>
  describe(`${backend.name}: graph and profiles`, () => {
    const run = <A, E>(effect: Effect.Effect<A, E, UserStore>) => Effect.provide(effect, backend.fresh())

    it.effect("an entity's timeline holds every fact naming it, oldest first, with provenance", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        yield* writeSession("alice", session("s1", ["Rex is my dog", "Rex loves walks"], [
          add(fact("Rex is Alice's dog", { ...subject("Rex"), occurred: "2024-02" })),
          add(fact("Rex loves walks", { ...subject("Rex"), occurred: "2023-01", turns: [2] })),
          add(fact("Kiwi is a parrot", subject("Kiwi")))
        ]))
        const timeline = yield* store.entityTimeline("alice", { needle: "rex", scope: NO_SCOPE, entities: 10 })
        expect(timeline.map(({ fact }) => fact.content)).toEqual(["Rex loves walks", "Rex is Alice's dog"])
        expect(timeline[0]!.sources.map((source) => source.content)).toEqual(["Rex loves walks"])
        expect(timeline[0]!.roles).toEqual([{ fact_id: timeline[0]!.fact.fact_id, role: "subject", name: "Rex" }])
        expect(yield* store.entityTimeline("alice", { needle: "", scope: NO_SCOPE, entities: 10 })).toEqual([])
      })))

    it.effect("exploring from a fact walks its entity edges and SUPERSEDES links to the facts they join", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        const first = yield* writeSession("alice", session("s1", ["x"], [add(fact("Rex is a puppy", subject("Rex"))), add(fact("Rex sleeps a lot", subject("Rex")))]))
        const old = yield* stored("alice", first.facts[0]!.factId)
        const second = yield* writeSession("alice", session("s2", ["y"], [replacing(fact("Rex is a grown dog", subject("Rex")), old)]))
        const newId = second.facts[0]!.factId
        const explored = yield* store.explore("alice", { startId: newId, scope: NO_SCOPE, depth: 2, limit: 50 })
        if (Option.isNone(explored)) return expect.unreachable("the start fact was not found")
        const { edges, found, nodes } = explored.value
        expect(nodes[0]!.fact.fact_id).toBe(newId)
        expect(new Set(nodes.map((node) => node.fact.content))).toEqual(new Set(["Rex is a grown dog", "Rex is a puppy", "Rex sleeps a lot"]))
        expect(edges.find((edge) => edge.edge_type === "SUPERSEDES")).toMatchObject({ src_fact_id: newId, dst_id: old.fact_id, dst_kind: "fact" })
        expect(found).toBe(edges.length)
        const cut = yield* store.explore("alice", { startId: newId, scope: NO_SCOPE, depth: 2, limit: 1 })
        expect(Option.map(cut, (graph) => graph.edges.length)).toEqual(Option.some(1))
        expect(yield* store.explore("alice", { startId: "fact_missing", scope: NO_SCOPE, depth: 2, limit: 5 })).toEqual(Option.none())
      })))

    it.effect("facts mark their entities stale; settling writes a profile, supersedes the previous one and clears the mark", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        yield* writeSession("alice", session("s1", ["x"], [add(fact("Rex is a dog", subject("Rex"))), add(fact("Rex barks", subject("Rex")))]))
        expect(yield* store.staleCount("alice")).toBe(1)
        const [rex] = yield* store.staleEntities("alice", "fifo", 10)
        expect(rex).toMatchObject({ name: "Rex", profile: null })
        const facts = yield* store.profileFacts("alice", rex!.entity_id)
        expect(facts.map((row) => row.content)).toEqual(["Rex barks", "Rex is a dog"])
        const profile = profileOf(rex!, "Rex is a dog who barks")
        expect(yield* store.settleProfile("alice", settlement(rex!, [profile], facts))).toEqual({ settled: true, written: 1, superseded: 0 })
        expect(yield* store.staleCount("alice")).toBe(0)
        expect((yield* stored("alice", profile.factId)).kind).toBe("profile")
        yield* writeSession("alice", session("s2", ["y"], [add(fact("Rex learned to sit", subject("Rex")))]))
        const [again] = yield* store.staleEntities("alice", "by_staleness", 10)
        expect(again?.profile).toBe(profile.factId)
        // A profile summarizes its entity: profiles never show among the facts a profile is made from.
        const now = yield* store.profileFacts("alice", again!.entity_id)
        expect(now.map((row) => row.kind)).toEqual(["fact", "fact", "fact"])
        const next = profileOf(again!, "Rex is a dog who barks and sits")
        expect(yield* store.settleProfile("alice", settlement(again!, [next], now))).toEqual({ settled: true, written: 1, superseded: 1 })
        expect((yield* stored("alice", profile.factId)).superseded_by).toBe(next.factId)
        expect(yield* store.staleCount("alice")).toBe(0)
      })))

    it.effect("settling an entity with nothing to profile clears its mark and archives the profiles it had", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        yield* writeSession("alice", session("s1", ["x"], [add(fact("Kiwi talks", subject("Kiwi")))]))
        const [kiwi] = yield* store.staleEntities("alice", "by_fact_count_delta", 10)
        const profile = profileOf(kiwi!, "Kiwi talks")
        yield* store.settleProfile("alice", settlement(kiwi!, [profile], []))
        expect(yield* store.settleProfile("alice", settlement(kiwi!, [], []))).toEqual({ settled: true, written: 0, superseded: 0 })
        expect((yield* stored("alice", profile.factId)).status).toBe("archived")
        expect(yield* store.staleEntities("alice", "fifo", 10)).toEqual([])
      })))

    it.effect("each scope's profile supersedes the profile of its own scope; one of a scope not rebuilt is archived", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        yield* writeSession("alice", session("s1", ["x"], [add(fact("Rex is a dog", subject("Rex")))]))
        const [rex] = yield* store.staleEntities("alice", "fifo", 10)
        const unscoped = profileOf(rex!, "Rex is a dog")
        yield* store.settleProfile("alice", settlement(rex!, [unscoped], []))
        const forA1 = profileOf(rex!, "Rex barks at a1", { ...NO_SCOPE, agent_id: "a1" })
        const forA2 = profileOf(rex!, "Rex barks at a2", { ...NO_SCOPE, agent_id: "a2" })
        const anyone = profileOf(rex!, "Rex is a dog who barks")
        expect(yield* store.settleProfile("alice", settlement(rex!, [forA1, forA2, anyone], []))).toEqual({ settled: true, written: 3, superseded: 1 })
        expect((yield* stored("alice", unscoped.factId)).superseded_by).toBe(anyone.factId)
        expect((yield* stored("alice", forA1.factId)).agent_id).toBe("a1")
        const onlyA1 = profileOf(rex!, "Rex sits for a1", { ...NO_SCOPE, agent_id: "a1" })
        expect(yield* store.settleProfile("alice", settlement(rex!, [onlyA1], []))).toEqual({ settled: true, written: 1, superseded: 1 })
        expect((yield* stored("alice", forA1.factId)).superseded_by).toBe(onlyA1.factId)
        for (const gone of [forA2, anyone]) expect((yield* stored("alice", gone.factId)).status).toBe("archived")
      })))

    it.effect("a settlement whose source fact was forgotten meanwhile writes nothing and leaves the entity stale", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        yield* writeSession("alice", session("s1", ["x"], [add(fact("Rex is a dog", subject("Rex"))), add(fact("Rex bit the postman", subject("Rex")))]))
        const [rex] = yield* store.staleEntities("alice", "fifo", 10)
        const facts = yield* store.profileFacts("alice", rex!.entity_id)
        const bite = facts.find((row) => row.content.includes("bit"))!
        yield* store.purge("alice", bite.fact_id, AUDIT)
        const profile = profileOf(rex!, "Rex is a dog that bit the postman")
        expect(yield* store.settleProfile("alice", settlement(rex!, [profile], facts))).toEqual({ settled: false, written: 0, superseded: 0 })
        expect(yield* store.fact("alice", profile.factId)).toEqual(Option.none())
        expect(yield* store.staleCount("alice")).toBe(1)
      })))

    it.effect("a settlement for a user erased meanwhile writes nothing and makes no data for them again", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        yield* writeSession("alice", session("s1", ["x"], [add(fact("Rex is a dog", subject("Rex")))]))
        const [rex] = yield* store.staleEntities("alice", "fifo", 10)
        const facts = yield* store.profileFacts("alice", rex!.entity_id)
        expect(yield* store.erase("alice")).toBe(true)
        expect(yield* store.settleProfile("alice", settlement(rex!, [profileOf(rex!, "Rex is a dog")], facts))).toEqual({ settled: false, written: 0, superseded: 0 })
        expect((yield* store.inventory).users.map((user) => user.user_id)).not.toContain("alice")
        expect(yield* store.erase("alice")).toBe(false)
      })))

    it.scoped("a user's maintenance lock is held by one run at a time, per user, until its scope closes", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        const heldWhileFirstRuns = yield* Effect.scoped(Effect.gen(function*() {
          expect(yield* store.maintenanceLock("alice")).toBe(true)
          return {
            again: yield* Effect.scoped(store.maintenanceLock("alice")),
            otherUser: yield* Effect.scoped(store.maintenanceLock("bob"))
          }
        }))
        expect(heldWhileFirstRuns).toEqual({ again: false, otherUser: true })
        expect(yield* Effect.scoped(store.maintenanceLock("alice"))).toBe(true)
        expect(yield* Effect.flip(Effect.scoped(store.maintenanceLock("../x")))).toMatchObject({ _tag: "InvalidScope" })
      })))
  })
