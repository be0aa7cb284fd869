import { Effect } from "effect"

/** Samples kept per route key; percentiles are over these, the most recent ones. */
export const RING_SIZE = 1024

class LatencyRing {
  private readonly samples = new Float64Array(RING_SIZE)
  private next = 0
  size = 0

  add(ms: number) {
    this.samples[this.next] = ms
    this.next = (this.next + 1) % RING_SIZE
    this.size = Math.min(this.size + 1, RING_SIZE)
  }

  sorted() {
    return Array.from(this.samples.subarray(0, this.size)).sort((a, b) => a - b)
  }
}

/** Nearest-rank percentile of sorted samples. */
export const nearestRank = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? 0

export interface RouteLatency {
  readonly count: number
  readonly min: number
  readonly p50: number
  readonly p95: number
  readonly p99: number
  readonly max: number
}

export interface RequestCount {
  readonly method: string
  readonly path: string
  readonly status: number
  readonly count: number
}

const round = (ms: number) => Math.round(ms * 1000) / 1000

/**
 * Per-route latency over each route's most recent requests, and request counts by method, path
 * template and status, since this process started. Routes never requested are absent.
 */
export class RequestMetrics extends Effect.Service<RequestMetrics>()("Memory/RequestMetrics", {
  sync: () => {
    const rings = new Map<string, LatencyRing>()
    const counts = new Map<string, { method: string; path: string; status: number; count: number }>()

    const record = (method: string, path: string, status: number, ms: number) =>
      Effect.sync(() => {
        const key = `${method} ${path}`
        let ring = rings.get(key)
        if (ring === undefined) rings.set(key, ring = new LatencyRing())
        ring.add(ms)
        const countKey = `${key} ${status}`
        const count = counts.get(countKey)
        if (count === undefined) counts.set(countKey, { method, path, status, count: 1 })
        else count.count++
      })

    /** Each route key's recent samples in milliseconds, sorted; keys sorted. */
    const sortedSamples = Effect.sync(() =>
      [...rings.keys()].sort().map((key) => [key, rings.get(key)!.sorted()] as const))

    /** `"<METHOD> <template>"` → latency figures in milliseconds, keys sorted. */
    const latencies = Effect.map(sortedSamples, (samples) => {
      const routes: Record<string, RouteLatency> = {}
      for (const [key, sorted] of samples) {
        routes[key] = {
          count: sorted.length,
          min: round(sorted[0] ?? 0),
          p50: round(nearestRank(sorted, 0.5)),
          p95: round(nearestRank(sorted, 0.95)),
          p99: round(nearestRank(sorted, 0.99)),
          max: round(sorted[sorted.length - 1] ?? 0)
        }
      }
      return routes
    })

    const requestCounts = Effect.sync((): ReadonlyArray<RequestCount> =>
      [...counts.values()].map((c) => ({ ...c })).sort((a, b) =>
        a.method.localeCompare(b.method) || a.path.localeCompare(b.path) || a.status - b.status))

    return { record, latencies, sortedSamples, requestCounts } as const
  }
}) {}
