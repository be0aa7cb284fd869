import { Effect } from "effect"
import { type EffectClient, makeClient } from "../../client/index.js"

export interface MemoryClientOptions {
  readonly baseUrl: string
  /** Sent as `Authorization: Bearer <key>`; leave it out for a service with auth disabled. */
  readonly apiKey?: string | undefined
  /** How long a read (context, search, a session's turns) may take before the call goes on without memory (default 2000 ms). */
  readonly timeoutMs?: number
  /** How long a write (remember, storing an exchange) may take; extraction calls an LLM (default 30000 ms). */
  readonly writeTimeoutMs?: number
  /** Where one-line notices go when memory is skipped or a write fails (default console.warn). */
  readonly log?: (line: string) => void
}

/** What went without memory so far, for the caller to read and export. */
export interface MemoryStats {
  /** Reads that timed out or failed, after which the call went on without memory. */
  readonly degraded: number
  /** Tool calls answered with an error result. */
  readonly toolErrors: number
  /** Exchanges or messages that could not be stored. */
  readonly storeFailures: number
  /** The last of these, as `"<code>: <message>"`. */
  readonly lastProblem: string | undefined
}

type Counter = "degraded" | "toolErrors" | "storeFailures"

/**
 * The connection the framework adapters share: the typed client derived from the API definition,
 * the time bounds of its calls, and the counters of what went without memory. One per service is
 * enough; the user is named on each adapter, never kept here.
 */
export class MemoryClient {
  readonly #counts: Record<Counter, number> = { degraded: 0, toolErrors: 0, storeFailures: 0 }
  #lastProblem: string | undefined = undefined
  readonly #pending = new Set<Promise<unknown>>()

  constructor(
    readonly api: EffectClient,
    readonly baseUrl: string,
    readonly timeoutMs: number,
    readonly writeTimeoutMs: number,
    private readonly log: (line: string) => void
  ) {}

  get stats(): MemoryStats {
    return { ...this.#counts, lastProblem: this.#lastProblem }
  }

  /** Counts a problem and says so in one line (never naming the user). */
  note(counter: Counter, what: string, problem: string) {
    this.#counts[counter]++
    this.#lastProblem = problem
    this.log(`memory-service: ${what} (${problem})`)
  }

  /** Keeps a write running in the background in view, so that `settled` can wait for it. */
  track(work: Promise<unknown>) {
    this.#pending.add(work)
    void work.finally(() => this.#pending.delete(work))
  }

  /** Resolves once every exchange stored in the background so far is stored or has failed (for shutdown, tests, examples). */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending])
  }
}

/** A connection to the memory service for the framework adapters. */
export const memoryClient = (options: MemoryClientOptions): MemoryClient =>
  new MemoryClient(
    Effect.runSync(makeClient(options.apiKey === undefined ? { baseUrl: options.baseUrl } : { baseUrl: options.baseUrl, apiKey: options.apiKey })),
    options.baseUrl,
    options.timeoutMs ?? 2_000,
    options.writeTimeoutMs ?? 30_000,
    options.log ?? ((line) => console.warn(line))
  )
