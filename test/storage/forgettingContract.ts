import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Option, Stream } from "effect"
import { newFactId } from "../../src/domain/ids.js"
import { factMetadata } from "../../src/domain/records.js"
import type { FactRecord, RowBatch } from "../../src/storage/transfer/records.js"
import { UserStore } from "../../src/storage/UserStore.js"
import type { StorageBackend } from "./contract.js"
import { add, AUDIT, axis, fact, LOADED, MODEL, NO_SCOPE, NOW, recallQuery, replacing, session, stored, writeSession } from "./fixtures.js"
import { withoutIds } from "../support/randomIds.js"

const recall = (userId: string, query: Parameters<typeof recallQuery>[0]) =>
  Effect.flatMap(UserStore, (store) =>
    Effect.flatMap(store.recall(userId, recallQuery(query)), Option.match({
      onNone: () => Effect.dieMessage(`${userId} has no data`),
      onSome: Effect.succeed
    })))

/** What the lexical legs find for some words: the turns' texts and the facts' statements. */
const foundBy = (userId: string, terms: ReadonlyArray<string>, statuses: ReadonlyArray<string> = ["active"]) =>
  Effect.map(recall(userId, { terms, statuses }), (legs) => [...legs.lexicalTurns.map((turn) => turn.row.content), ...legs.lexicalFacts.map((row) => row.content)])

const nearestTurns = (userId: string, vector: Float32Array) =>
  Effect.map(recall(userId, { vector: Either.right(vector) }), (legs) => Either.map(legs.vector, (near) => near.turns.map((turn) => turn.content)))

const TURN = "I live in Lyon. My PIN is 4417."

export const forgettingContract = (backend: StorageBackend) =>
  describe(`${backend.name}: forgetting`, () => {
    const run = <A, E>(effect: Effect.Effect<A, E, UserStore>) => Effect.provide(effect, backend.fresh())

    it.effect("archiving a memory elides its words from its turn: not matched, not shown, not embedded until embedded again", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        const written = yield* writeSession("alice", session("s1", [TURN, "Nothing to forget here"], [
          add(fact("Alice lives in Lyon"), axis(3)),
          add(fact("Alice's PIN is 4417"), axis(5))
        ], { turnVectors: [axis(0), axis(1)] }))
        const [lyon, pin] = written.facts.map((row) => row.factId)
        const archived = yield* store.archive("alice", pin!, AUDIT)
        const shown = "I live in Lyon. […]"
        expect(archived).toEqual(Option.some({
          already: false,
          reembed: [{ seq: expect.anything(), content: shown }],
          words: [{ text: "My PIN is 4417.", marker: "[…]" }, { text: "Alice's PIN is 4417", marker: "[…]" }]
        }))
        expect(yield* foundBy("alice", ["4417"])).toEqual([])
        expect(yield* foundBy("alice", ["pin"])).toEqual([])
        expect(yield* foundBy("alice", ["lyon"])).toEqual([shown, "Alice lives in Lyon"])
        // The record stays as it was: the words leave what is shown of the turns only.
        expect(yield* stored("alice", pin!)).toMatchObject({ status: "archived", content: "Alice's PIN is 4417" })
        const { sources } = yield* store.provenance("alice", [lyon!])
        expect(sources.map((source) => source.content)).toEqual([shown])
        expect(factMetadata(yield* stored("alice", lyon!)).support_text).toBe(shown)
        // The turn's old vector went with its old text; the other turn keeps its own.
        expect(yield* nearestTurns("alice", axis(0))).toEqual(Either.right(["Nothing to forget here"]))
        const reembed = Option.getOrThrow(archived).reembed
        // A vector for a text the turn no longer reads as is not stored.
        yield* store.embedTurns("alice", MODEL, reembed.map((turn) => ({ ...turn, content: TURN, vector: axis(2) })))
        expect(yield* nearestTurns("alice", axis(2))).toEqual(Either.right(["Nothing to forget here"]))
        yield* store.embedTurns("alice", MODEL, reembed.map((turn) => ({ ...turn, vector: axis(2) })))
        expect(yield* nearestTurns("alice", axis(2))).toEqual(Either.right([shown, "Nothing to forget here"]))
      })))

    it.effect("archiving takes the versions a memory superseded and the profiles citing them; the graph reads leave them out", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        const first = yield* writeSession("alice", session("s1", ["My PIN is 1234."], [add(fact("Alice's PIN is 1234", { entities: [{ name: "Bank", role: "object" }] }))]))
        const old = yield* stored("alice", first.facts[0]!.factId)
        const second = yield* writeSession("alice", session("s2", ["My PIN is now 4417."], [replacing(fact("Alice's PIN is 4417", { entities: [{ name: "Bank", role: "object" }] }), old)]))
        const current = second.facts[0]!.factId
        const [bank] = yield* store.staleEntities("alice", "fifo", 10)
        const profile = {
          factId: newFactId(),
          content: "Bank: Alice's PIN is 4417",
          kind: "profile",
          sessionId: null,
          occurredAt: null,
          validFrom: "2026-01-01",
          confidence: 1,
          metadata: { profile_of: bank!.entity_id, citations: [current] },
          scope: NO_SCOPE,
          spanIds: [],
          entities: [{ name: "Bank", role: "subject" }],
          predicate: "profile"
        }
        yield* store.settleProfile("alice", { entity: bank!, profiles: [{ fact: profile, citations: [current] }], sources: [current], audit: AUDIT })
        expect(yield* store.staleCount("alice")).toBe(0)
        yield* store.archive("alice", current, AUDIT)
        for (const id of [old.fact_id, current, profile.factId]) expect((yield* stored("alice", id)).status).toBe("archived")
        expect(yield* foundBy("alice", ["1234"], ["active", "superseded"])).toEqual([])
        expect(yield* foundBy("alice", ["4417"], ["active", "superseded"])).toEqual([])
        // The entity is left to be profiled again from what remains.
        expect(yield* store.staleCount("alice")).toBe(1)
        expect(yield* store.entityTimeline("alice", { needle: "bank", scope: NO_SCOPE, entities: 5 })).toEqual([])
        expect(yield* store.explore("alice", { startId: current, scope: NO_SCOPE, depth: 2, limit: 10 })).toEqual(Option.none())
      })))

    it.effect("purging a memory with more versions than one statement binds ids erases every version, each counted once", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        // 35,000 versions, each superseded by the next: loaded as an import loads rows.
        const VERSIONS = 35_000
        const id = (i: number) => `fact_version_${i}`
        const facts = Array.from({ length: VERSIONS }, (_, i): FactRecord => ({
          seq: i + 1, fact_id: id(i), content: `Alice's PIN, version ${i}`, kind: "fact", status: i === VERSIONS - 1 ? "active" : "superseded",
          session_id: null, occurred_at: null, valid_from: null, valid_until: null, confidence: 0.9, metadata: "{}",
          agent_id: null, run_id: null, project_id: null, superseded_by: i === VERSIONS - 1 ? null : id(i + 1),
          created_at: NOW, updated_at: NOW, embedding: null
        }))
        const loaded = yield* store.portability.load("alice", { space: null, batches: Stream.make<[RowBatch]>({ table: "facts", rows: facts }), event: () => LOADED, audit: AUDIT })
        expect(loaded).not.toBe("Occupied")
        const purged = Option.getOrThrow(yield* store.purge("alice", id(VERSIONS - 1), AUDIT))
        expect(purged.cascaded).toMatchObject({ versions: VERSIONS })
        for (const i of [0, VERSIONS / 2, VERSIONS - 1]) expect(yield* store.fact("alice", id(i))).toEqual(Option.none())
      })), { timeout: 120_000 })

    it.effect("purging a memory takes the entities only it named: their names came from its statement", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        const named = (name: string) => ({ entities: [{ name, role: "subject" }] })
        const written = yield* writeSession("alice", session("s1", ["x"], [
          add(fact("Zora Quill holds the key", { entities: [{ name: "Zora Quill", role: "subject" }, { name: "Rex", role: "object" }] })),
          add(fact("Rex is a dog", named("Rex")))
        ]))
        yield* store.purge("alice", written.facts[0]!.factId, AUDIT)
        const left = (yield* store.staleEntities("alice", "fifo", 100)).map((entity) => entity.name)
        expect(left).toEqual(["Rex"])
        expect(yield* store.entityTimeline("alice", { needle: "zora", scope: NO_SCOPE, entities: 5 })).toEqual([])
      })))

    it.effect("purging a memory redacts its words from the turns as recorded, with its versions, and out of the events about them", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        const first = yield* writeSession("alice", session("s1", ["My PIN is 1234. I live in Lyon."], [add(fact("Alice's PIN is 1234")), add(fact("Alice lives in Lyon"))]))
        const old = yield* stored("alice", first.facts[0]!.factId)
        const lyon = first.facts[1]!.factId
        const second = yield* writeSession("alice", session("s2", ["My PIN is now 4417."], [replacing(fact("Alice's PIN is 4417"), old)]))
        const current = yield* stored("alice", second.facts[0]!.factId)
        // A repeat merges into the current version, and its event quotes the statement.
        yield* writeSession("alice", session("s3", ["Again: my PIN is 4417."], [replacing(fact("Alice's PIN is 4417"), current, "duplicate")]))
        // An archived memory of the same turn stays elided once the purge rewrote the turn.
        yield* store.archive("alice", lyon, AUDIT)
        // Read ahead of the purge, the words it takes out are those it answers; nothing changed by reading them.
        const ahead = yield* store.purgeWords("alice", current.fact_id)
        expect(yield* store.purgeWords("alice", "fact_missing")).toEqual([])
        const purged = Option.getOrThrow(yield* store.purge("alice", current.fact_id, AUDIT))
        expect(purged.words).toEqual(ahead)
        expect(purged.cascaded).toMatchObject({ versions: 2, fact_events: 2, turns_redacted: 3, fact_sources: 3 })
        expect(purged.words.map((word) => word.text)).toEqual(expect.arrayContaining(["My PIN is 1234.", "Alice's PIN is 4417"]))
        expect(yield* store.fact("alice", old.fact_id)).toEqual(Option.none())
        expect(yield* store.fact("alice", current.fact_id)).toEqual(Option.none())
        for (const words of [["1234"], ["4417"], ["pin"], ["lyon"]]) expect(yield* foundBy("alice", words, ["active", "superseded"])).toEqual([])
        expect(purged.reembed).toEqual([])
        const events = yield* store.events("alice", { type: null, scope: NO_SCOPE, offset: 0, limit: 100 })
        expect(withoutIds(JSON.stringify(events.rows))).not.toMatch(/4417|1234/)
        expect(events.rows[0]).toMatchObject({ type: "memory_delete", memory_id: current.fact_id })
        const { sources } = yield* store.provenance("alice", [lyon])
        expect(sources.map((source) => source.content)).toEqual(["[redacted] […]"])
      })))
  })
