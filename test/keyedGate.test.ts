import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { makeKeyedGate } from "../src/util/keyedGate.js"

describe("makeKeyedGate: one at a time per key", () => {
  it.effect("runs effects of one key one after the other, and of other keys alongside", () =>
    Effect.gen(function*() {
      const gate = makeKeyedGate()
      const release = yield* Deferred.make<void>()
      const started: Array<string> = []
      const holder = yield* Effect.fork(gate("alice", Effect.zipRight(Effect.sync(() => started.push("alice 1")), Deferred.await(release))))
      yield* Effect.yieldNow()
      const queued = yield* Effect.fork(gate("alice", Effect.sync(() => started.push("alice 2"))))
      yield* gate("bob", Effect.sync(() => started.push("bob")))
      yield* Effect.yieldNow()
      expect(started).toEqual(["alice 1", "bob"])
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(holder)
      yield* Fiber.join(queued)
      expect(started).toEqual(["alice 1", "bob", "alice 2"])
    }))

  it.effect("a waiter interrupted in the queue leaves it: the next one still runs", () =>
    Effect.gen(function*() {
      const gate = makeKeyedGate()
      const release = yield* Deferred.make<void>()
      const holder = yield* Effect.fork(gate("alice", Deferred.await(release)))
      yield* Effect.yieldNow()
      const abandoned = yield* Effect.fork(gate("alice", Effect.succeed("never")))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(abandoned)
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(holder)
      expect(yield* gate("alice", Effect.succeed("after"))).toBe("after")
    }))

  it.effect("a failure gives the key up", () =>
    Effect.gen(function*() {
      const gate = makeKeyedGate()
      const failed = yield* Effect.either(gate("alice", Effect.fail("broken")))
      expect(failed._tag).toBe("Left")
      expect(yield* gate("alice", Effect.succeed("next"))).toBe("next")
    }))
})
