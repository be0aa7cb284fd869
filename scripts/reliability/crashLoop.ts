/**
 * Crash safety: real service processes take sync and async ingests (verbatim and extracted),
 * corrections and archives through the API while, over and over, a fault strikes: one of them is
 * killed with SIGKILL and restarted, or the database they share is halted and started again. After
 * every fault each acknowledged write must be there exactly once, every accepted job must succeed,
 * the storage must pass its integrity check, and a final SIGTERM must stop every service cleanly.
 *
 * Shared by `npm run crash` (long runs, compiled build) and short tests in CI (tsx). The caller
 * says how services start, what the fault is, and how the storage is read back and checked.
 */
import { makeWorkload, type ServerError, type Target } from "./crashClients.js"
import type { StoreCheck } from "./crashStores.js"
import { verifySessions } from "./crashVerify.js"
import { seededRandom } from "./random.js"

export interface KillableService {
  readonly port: number
  readonly kill: (signal: NodeJS.Signals) => void
  /** Resolves with the exit code (null when a signal ended it). */
  readonly exited: Promise<number | null>
  /** Where its output is kept, when it is (a file name in the run's log directory). */
  readonly log?: string
}

/** What strikes once a cycle. */
export type Fault =
  /** One service, chosen at random, is SIGKILLed and restarted while the others keep serving. */
  | { readonly _tag: "KillService" }
  /** The database is halted for a random time in `downMs`, then started again under the services. */
  | { readonly _tag: "DatabaseOutage"; readonly halt: () => Promise<void>; readonly resume: () => Promise<void>; readonly downMs: readonly [number, number] }

export interface CrashLoopOptions {
  readonly fault: Fault
  /** Faults to deliver. */
  readonly cycles: number
  /** Services running at once, all on the same storage; clients spread their requests over them. */
  readonly services: number
  /** Starts service number `index` (again, after a kill); rejects when it does not come up in time. */
  readonly start: (index: number) => Promise<KillableService>
  readonly stores: StoreCheck
  /** Request loops running at once. */
  readonly clients: number
  readonly users: number
  /** Traffic runs this long (a random time in the range) before each fault. */
  readonly uptimeMs: readonly [number, number]
  readonly seed: number
  readonly apiKey: string
  /** A request unanswered this long is a problem; 20 s unless told. */
  readonly answerWithinMs?: number
  readonly progress?: (line: string) => void
}

export interface CrashLoopReport {
  readonly starts: number
  readonly kills: number
  readonly outages: number
  readonly requests: number
  /** Writes answered 2xx (sync ingests, accepted async ingests, corrections, archives). */
  readonly acknowledged: number
  /** Requests cut off by a kill: their outcome is unknown, so they may or may not be stored (once). */
  readonly cutOff: number
  /** Writes answered `503 vector_store_unavailable` during an outage: not acknowledged, stored at most once. */
  readonly refused: number
  readonly lostWrites: number
  readonly duplicatedWrites: number
  readonly jobsNotFinished: number
  readonly integrityFailures: number
  readonly slowestRestartMs: number
  /** After an outage, the longest wait from the database's start until every service answered. */
  readonly slowestRecoveryMs: number
  readonly slowestAnswerMs: number
  /** A graceful stop (SIGTERM) at the end exited 0 for every service. */
  readonly cleanStop: boolean
  /** Every 5xx answer other than 503, with its request id (each is one of the problems too). */
  readonly serverErrors: ReadonlyArray<ServerError>
  /** One line per broken promise; empty when all held. */
  readonly problems: ReadonlyArray<string>
}

interface Slot {
  readonly service: KillableService
  killed: boolean
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export const runCrashLoop = async (options: CrashLoopOptions): Promise<CrashLoopReport> => {
  const random = seededRandom(options.seed)
  const between = ([low, high]: readonly [number, number]) => low + random() * (high - low)
  const problems: Array<string> = []
  const workload = makeWorkload({
    seed: options.seed,
    users: options.users,
    apiKey: options.apiKey,
    random,
    outagesExpected: options.fault._tag === "DatabaseOutage",
    answerWithinMs: options.answerWithinMs ?? 20_000,
    problems
  })
  const log = options.progress ?? (() => {})
  const figures = { starts: 0, kills: 0, outages: 0, slowestRestartMs: 0, slowestRecoveryMs: 0, lost: 0, duplicated: 0, integrityFailures: 0 }

  const slots: Array<Slot> = []
  const targetOf = (slot: Slot): Target => ({ port: slot.service.port, killed: () => slot.killed, log: slot.service.log })
  const live = () => slots.filter((slot) => !slot.killed)
  const pick = () => {
    const up = live()
    const slot = up[Math.floor(random() * up.length)]
    return slot === undefined ? undefined : targetOf(slot)
  }
  const startSlot = async (index: number) => {
    const started = Date.now()
    slots[index] = { service: await options.start(index), killed: false }
    figures.starts++
    figures.slowestRestartMs = Math.max(figures.slowestRestartMs, Date.now() - started)
  }

  const killOne = async () => {
    const index = Math.floor(random() * slots.length)
    const slot = slots[index]!
    slot.killed = true
    slot.service.kill("SIGKILL")
    await slot.service.exited
    figures.kills++
    await startSlot(index)
  }

  const outage = async (fault: Extract<Fault, { _tag: "DatabaseOutage" }>) => {
    await fault.halt()
    figures.outages++
    await sleep(between(fault.downMs))
    await fault.resume()
    const resumed = Date.now()
    for (const slot of live()) {
      while (!(await workload.answers(targetOf(slot))) && Date.now() - resumed < 60_000) await sleep(100)
    }
    const recoveryMs = Date.now() - resumed
    if (recoveryMs >= 60_000) problems.push(`the services did not answer within a minute of the database's start`)
    figures.slowestRecoveryMs = Math.max(figures.slowestRecoveryMs, recoveryMs)
  }

  /** With the clients stopped: every job ends, then the storage is read back and checked. */
  const settle = async () => {
    await workload.waitForJobs(pick)
    const verified = await verifySessions(workload.sessions, options.stores)
    figures.lost = verified.lost
    figures.duplicated = verified.duplicated
    problems.push(...verified.problems)
    const damaged = await options.stores.integrity()
    figures.integrityFailures += damaged.length
    problems.push(...damaged)
  }

  const cycle = async (index: number) => {
    let running = true
    const loops = Array.from({ length: options.clients }, () => workload.client(pick, () => running))
    await sleep(between(options.uptimeMs))
    const fault = options.fault
    await (fault._tag === "KillService" ? killOne() : outage(fault))
    running = false
    await Promise.all(loops)
    await settle()
    log(`${fault._tag === "KillService" ? "kill" : "outage"} ${index + 1}/${options.cycles}: ${workload.sessions.length} sessions sent, ${problems.length} problems`)
  }

  const run = async (): Promise<CrashLoopReport> => {
    await Promise.all(Array.from({ length: options.services }, (_, index) => startSlot(index)))
    for (let index = 0; index < options.cycles; index++) await cycle(index)
    const stopping = live()
    for (const slot of stopping) slot.service.kill("SIGTERM")
    const codes = await Promise.all(stopping.map((slot) => slot.service.exited))
    const cleanStop = codes.every((code) => code === 0)
    if (!cleanStop) problems.push(`the final SIGTERM exited ${codes.join(", ")}`)
    return {
      starts: figures.starts,
      kills: figures.kills,
      outages: figures.outages,
      requests: workload.stats.requests,
      ...workload.tally(),
      lostWrites: figures.lost,
      duplicatedWrites: figures.duplicated,
      integrityFailures: figures.integrityFailures,
      slowestRestartMs: figures.slowestRestartMs,
      slowestRecoveryMs: figures.slowestRecoveryMs,
      slowestAnswerMs: workload.stats.slowestAnswerMs,
      cleanStop,
      serverErrors: workload.serverErrors,
      problems
    }
  }

  try {
    return await run()
  } catch (error) {
    for (const slot of live()) slot.service.kill("SIGKILL")
    throw error
  }
}
