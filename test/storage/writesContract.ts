import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { UserStore } from "../../src/storage/UserStore.js"
import type { StorageBackend } from "./contract.js"
import { add, AUDIT, fact, NO_SCOPE, NOW, recallQuery, replacing, session, stored, writeSession } from "./fixtures.js"

const eventsOf = (userId: string) => Effect.flatMap(UserStore, (store) => store.events(userId, { type: null, scope: NO_SCOPE, offset: 0, limit: 100 }))

export const writesContract = (backend: StorageBackend) =>
  describe(`${backend.name}: writes`, () => {
    const run = <A, E>(effect: Effect.Effect<A, E, UserStore>) => Effect.provide(effect, backend.fresh())

    it.effect("a session writes its turns and facts, each fact with its memory_add event, in order", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        const written = yield* writeSession("alice", session("s1", ["I adopted a beagle", "It is named Rex"], [add(fact("Alice adopted a beagle")), add(fact("The beagle is named Rex", { turns: [2] }))]))
        expect(written.turnsWritten).toBe(2)
        expect(written.facts.map((f) => f.replaced)).toEqual([null, null])
        const page = yield* store.currentFacts("alice", { scope: NO_SCOPE, now: NOW, offset: 0, limit: 10 })
        expect(page.total).toBe(2)
        expect(page.rows.map((row) => row.content)).toEqual(["Alice adopted a beagle", "The beagle is named Rex"])
        const events = yield* eventsOf("alice")
        expect(events.rows.map((event) => [event.type, event.memory_id])).toEqual([
          ["memory_add", written.facts[1]!.factId],
          ["memory_add", written.facts[0]!.factId]
        ])
        expect(JSON.parse(events.rows[0]!.details)).toMatchObject({ actor: AUDIT.actor, request_id: AUDIT.requestId })
        const { sources } = yield* store.provenance("alice", [written.facts[1]!.factId])
        expect(sources.map((source) => source.content)).toEqual(["It is named Rex"])
      })))

    it.effect("provenance for more memories than one statement binds answers them whole (an entity's timeline reads it for all of its memories)", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        const written = yield* writeSession("alice", session("s1", ["I adopted a beagle"], [add(fact("Alice adopted a beagle", { entities: [{ name: "Rex", role: "object" }] }))]))
        const known = written.facts[0]!.factId
        const asked = [...Array.from({ length: 70_000 }, (_, i) => `fact_unknown_${i}`), known]
        const { roles, sources } = yield* store.provenance("alice", asked)
        expect(sources.map((source) => [source.fact_id, source.content])).toEqual([[known, "I adopted a beagle"]])
        expect(roles.map((role) => [role.fact_id, role.name])).toEqual([[known, "Rex"]])
      })))

    it.effect("a replacement supersedes its target: status, valid_until, superseded_by and the event", () =>
      run(Effect.gen(function*() {
        const first = yield* writeSession("alice", session("s1", ["I live in Paris"], [add(fact("Alice lives in Paris"))]))
        const old = yield* stored("alice", first.facts[0]!.factId)
        const second = yield* writeSession("alice", session("s2", ["I moved to Lyon"], [replacing(fact("Alice lives in Lyon", { occurred: "2025-05" }), old)]))
        const { factId, replaced } = second.facts[0]!
        expect(replaced).toBe(old.fact_id)
        const closed = yield* stored("alice", old.fact_id)
        expect(closed).toMatchObject({ status: "superseded", superseded_by: factId, valid_until: "2025-05" })
        expect((yield* stored("alice", factId)).status).toBe("active")
        const events = yield* eventsOf("alice")
        expect(events.rows[0]).toMatchObject({ type: "memory_supersede", memory_id: old.fact_id })
      })))

    it.effect("a plan whose target was superseded meanwhile, or already replaced in the session, becomes an add", () =>
      run(Effect.gen(function*() {
        const first = yield* writeSession("alice", session("s1", ["I live in Paris"], [add(fact("Alice lives in Paris"))]))
        const old = yield* stored("alice", first.facts[0]!.factId)
        const second = yield* writeSession("alice", session("s2", ["Lyon now", "no, Nice"], [
          replacing(fact("Alice lives in Lyon"), old),
          replacing(fact("Alice lives in Nice", { turns: [2] }), old)
        ]))
        expect(second.facts.map((f) => f.replaced)).toEqual([old.fact_id, null])
        const third = yield* writeSession("alice", session("s3", ["Marseille"], [replacing(fact("Alice lives in Marseille"), old)]))
        expect(third.facts[0]!.replaced).toBeNull()
      })))

    it.effect("a duplicate merges its sources into the current fact instead of writing a new one", () =>
      run(Effect.gen(function*() {
        const first = yield* writeSession("alice", session("s1", ["I like tea"], [add(fact("Alice likes tea"))]))
        const current = yield* stored("alice", first.facts[0]!.factId)
        const second = yield* writeSession("alice", session("s2", ["Tea is my favourite"], [replacing(fact("Alice likes tea"), current, "duplicate")]))
        expect(second.facts).toEqual([{ factId: current.fact_id, replaced: null, merged: true }])
        const { sources } = yield* (yield* UserStore).provenance("alice", [current.fact_id])
        expect(sources.map((source) => source.content)).toEqual(["I like tea", "Tea is my favourite"])
      })))

    it.effect("a session written for a job is applied once: a second run answers the first run's result", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        const write = session("s1", ["hello"])
        const options = { events: [], job: { id: "job-1", result: "{\"n\":1}" } }
        expect((yield* store.writeSession("alice", write, options))._tag).toBe("Written")
        expect(yield* store.appliedJob("alice", "job-1")).toEqual(Option.some("{\"n\":1}"))
        expect(yield* store.writeSession("alice", write, { ...options, job: { id: "job-1", result: "{\"n\":2}" } }))
          .toEqual({ _tag: "AlreadyApplied", result: "{\"n\":1}" })
        expect(yield* store.appliedJob("alice", "job-2")).toEqual(Option.none())
      })))

    it.effect("events carry the scope of the write that caused them, and a scoped read of the log narrows as reads of memories do", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        const a1 = { ...NO_SCOPE, agent_id: "a1", project_id: "p1" }
        const scoped = yield* writeSession("alice", session("s1", ["I adopted a beagle"], [add(fact("Alice adopted a beagle"))], { scope: a1 }))
        yield* writeSession("alice", session("s2", ["I live in Lyon"], [add(fact("Alice lives in Lyon"))]))
        yield* store.archive("alice", scoped.facts[0]!.factId, AUDIT)
        const log = (scope: typeof NO_SCOPE) =>
          Effect.map(store.events("alice", { type: null, scope, offset: 0, limit: 10 }), (page) =>
            ({ total: page.total, rows: page.rows.map((event) => [event.type, event.session_id, event.agent_id, event.run_id, event.project_id]) }))
        const archived = ["memory_delete", "s1", "a1", null, "p1"]
        const added = ["memory_add", "s1", "a1", null, "p1"]
        const unscoped = ["memory_add", "s2", null, null, null]
        expect(yield* log(NO_SCOPE)).toEqual({ total: 3, rows: [archived, unscoped, added] })
        expect(yield* log({ ...NO_SCOPE, agent_id: "a1" })).toEqual({ total: 3, rows: [archived, unscoped, added] })
        expect(yield* log({ ...NO_SCOPE, agent_id: "a2" })).toEqual({ total: 1, rows: [unscoped] })
        expect(yield* log({ ...NO_SCOPE, project_id: "p2" })).toEqual({ total: 1, rows: [unscoped] })
        expect(yield* log({ ...NO_SCOPE, run_id: "r1" })).toEqual({ total: 3, rows: [archived, unscoped, added] })
        const page = yield* store.events("alice", { type: "memory_add", scope: { ...NO_SCOPE, agent_id: "a2" }, offset: 0, limit: 10 })
        expect(page.rows.map((event) => event.session_id)).toEqual(["s2"])
      })))

    it.effect("a change to an existing memory carries the write's scope and the memory's stamps where the write sets none", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        const agent = yield* writeSession("alice", session("s1", ["I adopted a beagle"], [add(fact("Alice adopted a beagle"))], { scope: { ...NO_SCOPE, agent_id: "a2" } }))
        const open = yield* writeSession("alice", session("s2", ["I live in Lyon"], [add(fact("Alice lives in Lyon"))]))
        yield* writeSession("alice", session("s3", ["I adopted a beagle", "I live in Porto"], [
          replacing(fact("Alice adopted a beagle"), yield* stored("alice", agent.facts[0]!.factId), "duplicate"),
          replacing(fact("Alice lives in Porto", { turns: [2] }), yield* stored("alice", open.facts[0]!.factId))
        ], { scope: { ...NO_SCOPE, run_id: "r2" } }))
        const changes = (scope: typeof NO_SCOPE) =>
          Effect.map(store.events("alice", { type: "memory_supersede", scope, offset: 0, limit: 10 }), (page) =>
            page.rows.map((event) => [event.memory_id, event.agent_id, event.run_id, event.project_id]))
        const merged = [agent.facts[0]!.factId, "a2", "r2", null]
        const superseded = [open.facts[0]!.factId, null, "r2", null]
        expect(yield* changes(NO_SCOPE)).toEqual([superseded, merged])
        expect(yield* changes({ ...NO_SCOPE, agent_id: "a3", run_id: "r2" })).toEqual([superseded])
        expect(yield* changes({ ...NO_SCOPE, run_id: "r3" })).toEqual([])
      })))

    it.effect("the events given with a session are written after its facts' events", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        yield* store.writeSession("alice", session("s1", ["hi"], [add(fact("Alice says hi"))]), {
          events: [{ type: "memory_add", memoryId: null, sessionId: "s1", reason: "turns stored", details: { action: "store_turns" }, scope: NO_SCOPE }],
          job: null
        })
        expect((yield* eventsOf("alice")).rows.map((event) => event.reason)).toEqual(["turns stored", "extracted from session s1"])
      })))

    it.effect("a session that fails part way leaves nothing behind: no turn, fact or event", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        yield* writeSession("alice", session("s0", ["before"]))
        // An event whose details cannot be written fails the unit after its turns and facts were.
        const unwritable = { type: "memory_add" as const, memoryId: null, sessionId: "s1", reason: "unwritable", details: { size: 1n }, scope: NO_SCOPE }
        const exit = yield* Effect.exit(store.writeSession("alice", session("s1", ["lost turn"], [add(fact("Alice lost this"))]), { events: [unwritable], job: null }))
        expect(exit._tag).toBe("Failure")
        expect((yield* store.currentFacts("alice", { scope: NO_SCOPE, now: NOW, offset: 0, limit: 10 })).total).toBe(0)
        expect((yield* eventsOf("alice")).total).toBe(0)
        expect((yield* store.recall("alice", recallQuery({ terms: ["lost"] }))).pipe(Option.map((legs) => legs.lexicalTurns))).toEqual(Option.some([]))
      })))

    it.effect("a correction supersedes a current fact in scope, and is refused for one that is not, writing nothing", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        const first = yield* writeSession("alice", session("s1", ["I live in Paris"], [add(fact("Alice lives in Paris"))], { scope: { ...NO_SCOPE, agent_id: "a1" } }))
        const old = yield* stored("alice", first.facts[0]!.factId)
        const correction = (memoryId: string, scope = NO_SCOPE) => ({
          memoryId,
          scope,
          winner: 0,
          session: { ...session("fix", ["I live in Lyon"], [replacing(fact("Alice lives in Lyon"), old)]) }
        })
        const eventsBefore = (yield* eventsOf("alice")).total
        expect(yield* store.correct("alice", correction(old.fact_id, { ...NO_SCOPE, agent_id: "a2" }))).toEqual({ _tag: "Refused", current: old })
        expect(yield* store.correct("alice", correction("fact_missing"))).toEqual({ _tag: "Refused", current: undefined })
        expect((yield* eventsOf("alice")).total).toBe(eventsBefore)
        const corrected = yield* store.correct("alice", correction(old.fact_id))
        if (corrected._tag !== "Corrected") return expect.unreachable("the correction was refused")
        // The new version keeps the scope stamps of the memory it corrects.
        expect(corrected.fact).toMatchObject({ content: "Alice lives in Lyon", status: "active", agent_id: "a1" })
        expect((yield* stored("alice", old.fact_id)).superseded_by).toBe(corrected.fact.fact_id)
        expect((yield* store.correct("alice", correction(old.fact_id)))._tag).toBe("Refused")
      })))

    it.effect("archive hides a memory from current reads and keeps it; purge erases it; each with its event", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        const written = yield* writeSession("alice", session("s1", ["a", "b"], [add(fact("Alice keeps this")), add(fact("Alice archives this"))]))
        const [kept, archived] = [written.facts[0]!.factId, written.facts[1]!.factId]
        // Both facts come from turn "a", one sentence: it is all the archived memory's, and nothing is left to embed.
        expect(yield* store.archive("alice", archived, AUDIT)).toEqual(Option.some({
          already: false,
          reembed: [],
          words: expect.arrayContaining([{ text: "Alice archives this", marker: "[…]" }])
        }))
        expect(yield* store.archive("alice", archived, AUDIT)).toEqual(Option.some({ already: true, reembed: [], words: [] }))
        expect(yield* store.archive("alice", "fact_missing", AUDIT)).toEqual(Option.none())
        expect((yield* store.currentFacts("alice", { scope: NO_SCOPE, now: NOW, offset: 0, limit: 10 })).rows.map((row) => row.fact_id)).toEqual([kept])
        expect((yield* stored("alice", archived)).status).toBe("archived")
        const purged = yield* store.purge("alice", archived, AUDIT)
        expect(Option.isSome(purged)).toBe(true)
        expect(yield* store.fact("alice", archived)).toEqual(Option.none())
        expect(yield* store.purge("alice", archived, AUDIT)).toEqual(Option.none())
        const events = yield* eventsOf("alice")
        expect(events.rows.slice(0, 2).map((event) => JSON.parse(event.details).action)).toEqual(["purge", "archive"])
      })))

    it.effect("archiving every memory of a user counts them in one event; a user with no data has nothing to archive", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        yield* writeSession("alice", session("s1", ["a"], [add(fact("one")), add(fact("two"))]))
        expect(yield* store.archiveAll("alice", AUDIT)).toEqual(Option.some({
          archived: 2,
          reembed: [],
          words: expect.arrayContaining([{ text: "one", marker: "[…]" }, { text: "two", marker: "[…]" }])
        }))
        expect((yield* store.currentFacts("alice", { scope: NO_SCOPE, now: NOW, offset: 0, limit: 10 })).total).toBe(0)
        expect(JSON.parse((yield* eventsOf("alice")).rows[0]!.details)).toMatchObject({ action: "archive_user", archived: 2 })
        expect(yield* store.archiveAll("nobody", AUDIT)).toEqual(Option.none())
      })))

    it.effect("concurrent writers of one user serialize: every turn lands once, positions in one session never collide", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        yield* Effect.forEach(Array.from({ length: 20 }, (_, i) => i), (i) =>
          writeSession("alice", session("shared", [`turn ${i}`], [add(fact(`fact ${i}`))])), { concurrency: "unbounded", discard: true })
        const page = yield* store.currentFacts("alice", { scope: NO_SCOPE, now: NOW, offset: 0, limit: 100 })
        expect(page.total).toBe(20)
        const { sources } = yield* store.provenance("alice", page.rows.map((row) => row.fact_id))
        expect(new Set(sources.map((source) => source.turn_id)).size).toBe(20)
        expect((yield* eventsOf("alice")).total).toBe(20)
      })))

    it.effect("erasing one user leaves the others whole; reads of an unknown user answer empty and create nothing", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        yield* writeSession("alice", session("s1", ["a"], [add(fact("Alice fact"))]))
        yield* writeSession("bob", session("s1", ["b"], [add(fact("Bob fact"))]))
        expect(yield* store.erase("alice")).toBe(true)
        expect(yield* store.erase("alice")).toBe(false)
        expect((yield* store.currentFacts("alice", { scope: NO_SCOPE, now: NOW, offset: 0, limit: 10 })).total).toBe(0)
        expect((yield* store.currentFacts("bob", { scope: NO_SCOPE, now: NOW, offset: 0, limit: 10 })).rows.map((row) => row.content)).toEqual(["Bob fact"])
        expect(yield* store.events("carol", { type: null, scope: NO_SCOPE, offset: 0, limit: 10 })).toEqual({ rows: [], total: 0 })
        expect((yield* store.inventory).users.map((user) => user.user_id)).toEqual(["bob"])
      })))

    it.effect("a user_id outside the allowlist is refused with InvalidScope before anything is touched", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        for (const userId of ["../escape", ".hidden", "a/b", ""]) {
          expect((yield* Effect.flip(store.provision(userId)))._tag).toBe("InvalidScope")
          expect((yield* Effect.flip(store.fact(userId, "fact_x")))._tag).toBe("InvalidScope")
        }
      })))

    it.effect("current facts honour scope: a fact stamped with another value is out, an unstamped one is in", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        yield* writeSession("alice", session("s1", ["x"], [add(fact("for a1"))], { scope: { ...NO_SCOPE, agent_id: "a1" } }))
        yield* writeSession("alice", session("s2", ["y"], [add(fact("for a2"))], { scope: { ...NO_SCOPE, agent_id: "a2" } }))
        yield* writeSession("alice", session("s3", ["z"], [add(fact("for everyone"))]))
        const seen = yield* store.currentFacts("alice", { scope: { ...NO_SCOPE, agent_id: "a1" }, now: NOW, offset: 0, limit: 10 })
        expect(seen.rows.map((row) => row.content)).toEqual(["for a1", "for everyone"])
        expect(seen.total).toBe(2)
      })))

    it.effect("a state past its validity is no longer current; a paged listing counts every current fact", () =>
      run(Effect.gen(function*() {
        const store = yield* UserStore
        const first = yield* writeSession("alice", session("s1", ["mood"], [add(fact("Alice is tired", { kind: "state" })), add(fact("Alice likes tea"))]))
        const old = yield* stored("alice", first.facts[0]!.factId)
        yield* writeSession("alice", session("s2", ["rested"], [replacing(fact("Alice is rested", { kind: "state", occurred: "2025-06-01" }), old)]))
        const page = yield* store.currentFacts("alice", { scope: NO_SCOPE, now: NOW, offset: 1, limit: 1 })
        expect(page.total).toBe(2)
        expect(page.rows.map((row) => row.content)).toEqual(["Alice is rested"])
      })))
  })
