import { describe, expect, it } from "@effect/vitest"
import { RecentCache } from "../src/util/recentCache.js"

describe("RecentCache: the most recently used entries, up to its capacity", () => {
  it("drops the least recently used entry past its capacity, a read counting as a use", () => {
    const cache = new RecentCache<string, number>(2)
    cache.set("a", 1)
    cache.set("b", 2)
    expect(cache.get("a")).toBe(1)
    cache.set("c", 3)
    expect(cache.get("b")).toBeUndefined()
    expect([cache.get("a"), cache.get("c"), cache.size]).toEqual([1, 3, 2])
  })

  it("overwrites a key in place, making it the newest, and empties on clear", () => {
    const cache = new RecentCache<string, number>(2)
    cache.set("a", 1)
    cache.set("b", 2)
    cache.set("a", 10)
    cache.set("c", 3)
    expect([cache.get("a"), cache.get("b"), cache.get("c"), cache.size]).toEqual([10, undefined, 3, 2])
    cache.clear()
    expect([cache.get("a"), cache.size]).toEqual([undefined, 0])
  })
})
