/**
 * The fuzz run, shared by the script and the CI test: reads the OpenAPI document of a running
 * server, writes fixtures, sends `count` generated requests (reproducible from `seed`), judges
 * every response and checks afterwards that the service still works.
 */
import { FastCheck as fc } from "effect"
import * as NodeHttp from "node:http"
import { type CaseContext, requestCase, type RequestCase } from "./fuzzCases.js"
import { type Check, hintsFor, prepareFixtures, serviceStillWorks } from "./fuzzFixtures.js"
import { sendCase } from "./fuzzHttp.js"
import { judge, type Outcome } from "./fuzzOracle.js"
import { type OpenApiDocument, type Operation, operationsOf } from "./openapiDocument.js"

export interface FuzzOptions {
  readonly baseUrl: string
  readonly apiKey: string
  readonly seed: number
  readonly count: number
  /** The server's SERVICE_MAX_BODY_BYTES, which oversize bodies exceed. */
  readonly maxBodyBytes: number
  readonly concurrency?: number
  readonly timeoutMs?: number
  /** Send only the case with this index (a replay of a reported failure). */
  readonly only?: number
  readonly onProgress?: (sent: number) => void
}

export interface Failure {
  readonly index: number
  readonly request: RequestCase
  readonly outcome: Outcome
  readonly reason: string
}

/** A request that took long, for the figures. */
export interface Slow {
  readonly index: number
  readonly request: RequestCase
  readonly ms: number
}

export interface OperationFigures {
  requests: number
  failures: number
  /** The longest response time, in milliseconds. */
  maxMs: number
  /** Responses by status (`dropped` for a connection closed without one). */
  readonly statuses: Map<string, number>
}

export interface FuzzReport {
  readonly seed: number
  readonly requests: number
  readonly elapsedMs: number
  readonly operations: ReadonlyMap<string, OperationFigures>
  readonly kinds: ReadonlyMap<string, number>
  readonly failures: ReadonlyArray<Failure>
  /** The slowest requests, slowest first. */
  readonly slowest: ReadonlyArray<Slow>
  readonly checks: ReadonlyArray<Check>
}

const SLOWEST_KEPT = 5

/** Cases are generated this many at a time, each batch from its own seed (`seed + batch`). */
const BATCH = 100

/**
 * Fixtures are written again every this many cases: the fuzzer archives and erases what it
 * aims at, and ids that no longer exist would leave the paths that find a memory untried.
 */
const SEGMENT = 5 * BATCH

const increment = <K>(map: Map<K, number>, key: K) => map.set(key, (map.get(key) ?? 0) + 1)

/** Cases `from` to `to` (batch-aligned), generated lazily so that huge bodies do not all live at once. */
function* cases(arbitrary: fc.Arbitrary<RequestCase>, seed: number, from: number, to: number): Generator<[number, RequestCase]> {
  for (let start = from; start < to; start += BATCH) {
    const sample = fc.sample(arbitrary, { seed: (seed + start / BATCH) | 0, numRuns: Math.min(BATCH, to - start) })
    for (const [i, request] of sample.entries()) yield [start + i, request]
  }
}

/** The figures, as responses come in. */
const tally = (operations: ReadonlyArray<Operation>) => {
  const figures = new Map(operations.map((operation): [string, OperationFigures] =>
    [operation.id, { requests: 0, failures: 0, maxMs: 0, statuses: new Map() }]))
  const kinds = new Map<string, number>()
  const failures: Array<Failure> = []
  const slowest: Array<Slow> = []
  let requests = 0
  const record = (index: number, request: RequestCase, outcome: Outcome, ms: number) => {
    const reason = judge(operations, request, outcome)
    const operation = figures.get(request.operation)
    if (operation !== undefined) {
      operation.requests++
      operation.maxMs = Math.max(operation.maxMs, ms)
      increment(operation.statuses, outcome._tag === "Reply" ? String(outcome.reply.status) : "dropped")
      if (reason !== undefined) operation.failures++
    }
    increment(kinds, request.kind)
    if (reason !== undefined) failures.push({ index, request, outcome, reason })
    slowest.push({ index, request, ms })
    slowest.sort((a, b) => b.ms - a.ms).splice(SLOWEST_KEPT)
    return ++requests
  }
  return { figures, kinds, failures, slowest, record, requests: () => requests }
}

export const runFuzz = async (options: FuzzOptions): Promise<FuzzReport> => {
  const started = Date.now()
  const baseUrl = new URL(options.baseUrl)
  const document = await (await fetch(`${options.baseUrl}/openapi.json`)).json() as OpenApiDocument
  const operations = operationsOf(document)
  const concurrency = options.concurrency ?? 8
  const agent = new NodeHttp.Agent({ keepAlive: true, maxSockets: concurrency })
  const figures = tally(operations)
  const first = options.only === undefined ? 0 : options.only - (options.only % SEGMENT)
  const last = options.only === undefined ? options.count : options.only + 1
  for (let from = first; from < last; from += SEGMENT) {
    const fixtures = await prepareFixtures(options.baseUrl, options.apiKey)
    const context: CaseContext = { document, hints: hintsFor(fixtures), maxArrayLength: 4, apiKey: options.apiKey, maxBodyBytes: options.maxBodyBytes }
    const arbitrary = fc.oneof(...operations.map((operation) => requestCase(context, operation)))
    const pending = cases(arbitrary, options.seed, from, Math.min(from + SEGMENT, last))
    const worker = async () => {
      for (let next = pending.next(); next.done !== true; next = pending.next()) {
        const [index, request] = next.value
        if (options.only !== undefined && index !== options.only) continue
        const sentAt = performance.now()
        const outcome = await sendCase(baseUrl, agent, request, options.timeoutMs ?? 60_000)
        if (figures.record(index, request, outcome, performance.now() - sentAt) % BATCH === 0) options.onProgress?.(figures.requests())
      }
    }
    await Promise.all(Array.from({ length: concurrency }, worker))
  }
  agent.destroy()
  const checks = await serviceStillWorks(options.baseUrl, options.apiKey)
  return {
    seed: options.seed,
    requests: figures.requests(),
    elapsedMs: Date.now() - started,
    operations: figures.figures,
    kinds: figures.kinds,
    failures: figures.failures,
    slowest: figures.slowest,
    checks
  }
}

/** No failed request and every after-run check passed. */
export const passed = (report: FuzzReport) => report.failures.length === 0 && report.checks.every((check) => check.ok)
