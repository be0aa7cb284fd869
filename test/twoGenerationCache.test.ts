import { describe, expect, it } from "@effect/vitest"
import { TwoGenerationCache } from "../src/util/twoGenerationCache.js"

describe("TwoGenerationCache: recently used entries, at most its capacity", () => {
  it("keeps the half of its capacity most recently used, a read counting as a use", () => {
    const cache = new TwoGenerationCache<string, number>(4)
    cache.set("a", 1)
    cache.set("b", 2)
    cache.set("c", 3)
    expect(cache.get("a")).toBe(1)
    cache.set("d", 4)
    // b, unread, went with its generation; a was read, so it was kept.
    expect([cache.get("b"), cache.get("d"), cache.get("a")]).toEqual([undefined, 4, 1])
  })

  it("never holds more than its capacity and always its most recent half, with each key's last value", () => {
    const capacity = 6
    const cache = new TwoGenerationCache<number, number>(capacity)
    const latest = new Map<number, number>()
    const used: Array<number> = []
    let seed = 7
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648)
    for (let step = 0; step < 2_000; step++) {
      const key = next() % 10
      if (next() % 3 === 0) {
        cache.set(key, step)
        latest.set(key, step)
        used.push(key)
      } else if (cache.get(key) !== undefined) {
        used.push(key)
      }
      expect(cache.size).toBeLessThanOrEqual(capacity)
      const mostRecent = [...new Set([...used].reverse())].slice(0, capacity / 2)
      for (const recent of mostRecent) expect(cache.get(recent)).toBe(latest.get(recent))
      // Reading them used them, in that order.
      used.push(...mostRecent)
    }
  })

  it("overwrites a key in place and empties on clear", () => {
    const cache = new TwoGenerationCache<string, number>(4)
    cache.set("a", 1)
    cache.set("b", 2)
    cache.set("a", 10)
    expect([cache.get("a"), cache.get("b")]).toEqual([10, 2])
    cache.clear()
    expect([cache.get("a"), cache.get("b"), cache.size]).toEqual([undefined, undefined, 0])
  })

  it("holds one entry at a capacity of one", () => {
    const cache = new TwoGenerationCache<string, number>(1)
    cache.set("a", 1)
    cache.set("b", 2)
    expect([cache.get("a"), cache.get("b"), cache.size]).toEqual([undefined, 2, 1])
  })
})
