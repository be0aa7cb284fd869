/**
 * A map that keeps only its `capacity` most recently used entries: a read or a write makes an
 * entry the newest, and a write past the capacity drops the oldest.
 */
export class RecentCache<K, V> {
  private readonly entries = new Map<K, V>()

  constructor(readonly capacity: number) {}

  get size() {
    return this.entries.size
  }

  get(key: K): V | undefined {
    const value = this.entries.get(key)
    if (value !== undefined) {
      // A Map iterates in insertion order: re-inserting makes the entry the newest.
      this.entries.delete(key)
      this.entries.set(key, value)
    }
    return value
  }

  set(key: K, value: V) {
    this.entries.delete(key)
    this.entries.set(key, value)
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!)
  }

  clear() {
    this.entries.clear()
  }
}
