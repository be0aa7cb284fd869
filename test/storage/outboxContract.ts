import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ControlStore } from "../../src/storage/ControlStore.js"
import { UserStore } from "../../src/storage/UserStore.js"
import type { StorageBackend } from "./contract.js"
import { add, AUDIT, fact, session, writeSession } from "./fixtures.js"
import { withoutIds } from "../support/randomIds.js"

/** The outbox of a user as it reads: each entry's event type and attempts. */
const outboxOf = (userId: string) =>
  Effect.flatMap(UserStore, (store) =>
    Effect.map(store.outbox.head(userId, 50), ({ entries, total }) => ({
      total,
      entries: entries.map((entry) => ({ type: entry.event.type, attempts: entry.attempts, nextAttemptAt: entry.nextAttemptAt }))
    })))

export const outboxContract = (backend: StorageBackend) =>
  describe(`${backend.name}: webhook outbox`, () => {
    const withWebhooks = <A, E>(effect: Effect.Effect<A, E, UserStore | ControlStore>) => Effect.provide(effect, backend.fresh({ webhooks: true }))

    it.effect("every audit event a write appends enters its user's outbox in order; the writing user is due at once", () =>
      withWebhooks(Effect.gen(function*() {
        const store = yield* UserStore
        const written = yield* writeSession("alice", session("s1", ["I live in Lyon. My PIN is 4417."], [add(fact("Alice lives in Lyon")), add(fact("Alice's PIN is 4417"))]))
        yield* writeSession("bob", session("s1", ["Bob plays chess"], [add(fact("Bob plays chess"))]))
        const [, pin] = written.facts.map((row) => row.factId)
        yield* store.archive("alice", written.facts[0]!.factId, AUDIT)
        yield* store.purge("alice", pin!, AUDIT)
        const { entries, total } = yield* store.outbox.head("alice", 50)
        expect(total).toBe(4)
        expect(entries.map((entry) => [entry.event.type, entry.event.memory_id, entry.attempts])).toEqual([
          ["memory_add", written.facts[0]!.factId, 0],
          ["memory_add", pin!, 0],
          ["memory_delete", written.facts[0]!.factId, 0],
          ["memory_delete", pin!, 0]
        ])
        // An entry reads its event as it is now: the purge took the statement out of the events about it.
        expect(withoutIds(entries.map((entry) => entry.event.details).join(" "))).not.toContain("4417")
        expect(entries.map((entry) => entry.seq)).toEqual([...entries.map((entry) => entry.seq)].sort((a, b) => a - b))
        expect((yield* store.outbox.pending("alice")).map((event) => event.event_id)).toEqual(entries.map((entry) => entry.event.event_id))
        const users = yield* store.outbox.users
        expect(users.every((user) => user.due === 0)).toBe(true)
        expect(new Set(users.map((user) => user.userId))).toEqual(new Set(["alice", "bob"]))
      })))

    it.effect("an entry is postponed with its attempts; settled entries leave up to one; trim keeps the newest and counts the rest", () =>
      withWebhooks(Effect.gen(function*() {
        const store = yield* UserStore
        for (let i = 0; i < 5; i++) yield* writeSession("carol", session(`s${i}`, [`note ${i}`], [add(fact(`Carol wrote note ${i}`))]))
        const [first] = (yield* store.outbox.head("carol", 1)).entries
        yield* store.outbox.postpone("carol", first!.seq, 3, 123_456)
        expect((yield* outboxOf("carol")).entries[0]).toEqual({ type: "memory_add", attempts: 3, nextAttemptAt: 123_456 })
        const [, second] = (yield* store.outbox.head("carol", 2)).entries
        yield* store.outbox.removeThrough("carol", second!.seq)
        expect((yield* outboxOf("carol")).total).toBe(3)
        const newest = (yield* store.outbox.head("carol", 50)).entries.slice(-2).map((entry) => entry.seq)
        expect(yield* store.outbox.trim("carol", 2)).toBe(1)
        expect(yield* store.outbox.trim("carol", 2)).toBe(0)
        expect((yield* store.outbox.head("carol", 50)).entries.map((entry) => entry.seq)).toEqual(newest)
        // Erasing the user empties their outbox with the rest of their data.
        expect(yield* store.erase("carol")).toBe(true)
        expect(yield* outboxOf("carol")).toEqual({ total: 0, entries: [] })
      })))

    it.effect("without webhooks, writes leave the outbox empty", () =>
      Effect.provide(Effect.gen(function*() {
        yield* writeSession("dan", session("s1", ["Dan runs"], [add(fact("Dan runs"))]))
        expect(yield* outboxOf("dan")).toEqual({ total: 0, entries: [] })
      }), backend.fresh()))

    it.scoped("a user's outbox is held by one claim at a time on a shared backend, and given back with its scope", () =>
      withWebhooks(Effect.gen(function*() {
        const store = yield* UserStore
        yield* writeSession("erin", session("s1", ["Erin sings"], []))
        const claimed = yield* Effect.scoped(Effect.gen(function*() {
          const first = yield* store.outbox.claim("erin")
          const second = yield* Effect.scoped(store.outbox.claim("erin"))
          return { first, second }
        }))
        expect(claimed).toEqual({ first: true, second: !backend.shared })
        expect(yield* Effect.scoped(store.outbox.claim("erin"))).toBe(true)
      })))

    it.effect("the control plane's queue: held changes are not due until released, then come in order; dropped ones are gone", () =>
      withWebhooks(Effect.gen(function*() {
        const queue = (yield* ControlStore).webhooks
        const ids = yield* queue.hold("frank", ["{\"n\":1}", "{\"n\":2}", "{\"n\":3}"])
        const other = yield* queue.hold("gina", ["{\"n\":9}"])
        expect(ids).toHaveLength(3)
        expect(yield* queue.users).toEqual([])
        expect((yield* queue.held).map((change) => change.userId)).toEqual(["frank", "frank", "frank", "gina"])
        yield* queue.release(ids)
        yield* queue.drop(other)
        expect(yield* queue.users).toEqual([{ userId: "frank", due: 0 }])
        const head = yield* queue.head("frank", 10)
        expect(head.map((change) => change.payload)).toEqual(["{\"n\":1}", "{\"n\":2}", "{\"n\":3}"])
        yield* queue.postpone(head[0]!.id, 2, 9_000)
        expect(yield* queue.users).toEqual([{ userId: "frank", due: 0 }])
        yield* queue.remove(head[1]!.id)
        yield* queue.remove(head[2]!.id)
        expect(yield* queue.users).toEqual([{ userId: "frank", due: 9_000 }])
        expect(yield* queue.head("frank", 10)).toEqual([{ ...head[0]!, attempts: 2, nextAttemptAt: 9_000 }])
        expect(yield* queue.held).toEqual([])
      })))
  })
