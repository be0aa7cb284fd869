/**
 * Crash safety: a real server takes sync and async ingests (verbatim and extracted), corrections
 * and archives through the API while it is killed with SIGKILL at random moments, over and over.
 * After every restart each acknowledged write must be there exactly once, every accepted job must
 * end, every SQLite file must pass `PRAGMA integrity_check`, and the restart must not be blocked.
 *
 * Shared by `npm run crash` (long run, compiled build) and a short test in CI (tsx).
 */
import Database from "better-sqlite3"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { seededRandom } from "./random.js"

export interface KillableService {
  readonly port: number
  readonly kill: (signal: NodeJS.Signals) => void
  /** Resolves with the exit code (null when a signal ended it). */
  readonly exited: Promise<number | null>
}

export interface CrashLoopOptions {
  /** SIGKILLs to deliver; the service is started once more than that. */
  readonly kills: number
  /** Request loops running at once against the service. */
  readonly clients: number
  readonly users: number
  /** Each life of the service lasts a random time in this range before the kill. */
  readonly uptimeMs: readonly [number, number]
  readonly seed: number
  readonly apiKey: string
  readonly dataRoot: string
  /** Starts the service over the data root; rejects when it does not come up in time. */
  readonly start: () => Promise<KillableService>
  readonly progress?: (line: string) => void
}

export interface CrashLoopReport {
  readonly starts: number
  readonly kills: number
  readonly requests: number
  /** Writes answered 2xx (sync ingests, accepted async ingests, corrections, archives). */
  readonly acknowledged: number
  /** Requests cut off by a kill: their outcome is unknown, so they may or may not be stored (once). */
  readonly cutOff: number
  readonly lostWrites: number
  readonly duplicatedWrites: number
  readonly jobsNotFinished: number
  readonly integrityFailures: number
  readonly slowestRestartMs: number
  /** A graceful stop (SIGTERM) at the end exited 0. */
  readonly cleanStop: boolean
  /** One line per broken promise; empty when all held. */
  readonly problems: ReadonlyArray<string>
}

/** A session the service acknowledged (200, or 202 with a job) or that was cut off by a kill. */
interface SentSession {
  readonly userId: string
  readonly token: string
  readonly turn: string
  readonly extracted: boolean
  outcome: "acknowledged" | "cut_off" | "refused"
  jobId?: string | undefined
  /** Known once the fact was found through search; corrections and archives act on it. */
  factId?: string
  /** Picked by one client for a correction or an archive, so that no other client acts on it too. */
  claimed?: boolean
  /** Set when a correction or archive of its fact was sent: then its fact's state is settled by it. */
  change?: { readonly kind: "supersede" | "archive"; readonly acknowledged: boolean; readonly newContent?: string }
}

const TERMINAL = new Set(["succeeded", "failed"])

export const runCrashLoop = async (options: CrashLoopOptions): Promise<CrashLoopReport> => {
  const random = seededRandom(options.seed)
  const sessions: Array<SentSession> = []
  const problems: Array<string> = []
  let requests = 0
  let sequence = 0
  let slowestRestartMs = 0
  const log = options.progress ?? (() => {})

  const call = async (port: number, method: string, path: string, body?: unknown) => {
    requests++
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      headers: { authorization: `Bearer ${options.apiKey}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    return { status: response.status, body: await response.json() as Record<string, unknown> }
  }

  const refused = (what: string, status: number, body: unknown) => problems.push(`${what} answered ${status}: ${JSON.stringify(body).slice(0, 200)}`)

  const ingest = async (port: number) => {
    const n = sequence++
    const token = `Kw${options.seed}x${n}q`
    const extracted = random() < 0.5
    const asyncMode = random() < 0.5
    const userId = `crash_u${n % options.users}`
    // An extracted session is one statement the stub model turns into one fact naming the token.
    const turn = extracted ? `${token} is my favourite word.` : `crash note ${token}`
    const session: SentSession = { userId, token, turn, extracted, outcome: "cut_off" }
    sessions.push(session)
    const sent = await call(port, "POST", "/v1/memories", {
      user_id: userId,
      session_id: `crash-${n}`,
      infer: extracted,
      async_mode: asyncMode,
      messages: [{ role: "user", content: turn }]
    })
    if (sent.status === 200 || sent.status === 202) {
      session.outcome = "acknowledged"
      if (sent.status === 202) session.jobId = String(sent.body.job_id)
    } else {
      session.outcome = "refused"
      refused("ingest", sent.status, sent.body)
    }
  }

  /** Finds the fact of an acknowledged extracted session through search, then corrects or archives it. */
  const change = async (port: number) => {
    const candidates = sessions.filter((s) => s.extracted && s.outcome === "acknowledged" && s.jobId === undefined && s.claimed !== true)
    const session = candidates[Math.floor(random() * candidates.length)]
    if (session === undefined) return ingest(port)
    session.claimed = true
    const found = await call(port, "POST", "/v1/search", { user_id: session.userId, query: session.token, top_k: 5 })
    const hits = (found.body.hits ?? []) as Array<{ content: string; metadata: { fact_id?: unknown } }>
    const factId = hits.find((hit) => typeof hit.metadata.fact_id === "string" && hit.content.includes(session.token))?.metadata.fact_id
    if (found.status !== 200 || typeof factId !== "string") {
      problems.push(`search did not find the acknowledged fact ${session.token} (${found.status})`)
      return
    }
    session.factId = factId
    const path = `/v1/memories/${encodeURIComponent(factId)}`
    if (random() < 0.5) {
      const newContent = `${session.token} is my favourite word since spring.`
      session.change = { kind: "supersede", acknowledged: false, newContent }
      const corrected = await call(port, "PATCH", path, { user_id: session.userId, content: newContent })
      if (corrected.status === 200) session.change = { ...session.change, acknowledged: true }
      else refused("correction", corrected.status, corrected.body)
    } else {
      session.change = { kind: "archive", acknowledged: false }
      const archived = await call(port, "DELETE", `${path}?user_id=${session.userId}`)
      if (archived.status === 200 && archived.body.deleted === true) session.change = { ...session.change, acknowledged: true }
      else refused("archive", archived.status, archived.body)
    }
  }

  /** Sends requests until the service dies under it; a request the kill cuts off is expected. */
  const clientLoop = async (port: number, alive: () => boolean) => {
    while (alive()) {
      try {
        await (random() < 0.8 ? ingest(port) : change(port))
      } catch {
        // The connection died with the process: the request's outcome is unknown.
      }
    }
  }

  const waitForJobs = async (port: number) => {
    const deadline = Date.now() + 60_000
    for (const session of sessions.filter((s) => s.jobId !== undefined && s.outcome === "acknowledged")) {
      let status = ""
      while (!TERMINAL.has(status) && Date.now() < deadline) {
        const job = await call(port, "GET", `/v1/jobs/${session.jobId}`)
        status = String(job.body.status)
        if (!TERMINAL.has(status)) await new Promise((resolve) => setTimeout(resolve, 50))
      }
      if (status === "failed") problems.push(`job ${session.jobId} failed`)
      if (!TERMINAL.has(status)) problems.push(`job ${session.jobId} still ${status} after restart`)
      else session.jobId = undefined
    }
  }

  const verifyStores = () => {
    let lost = 0
    let duplicated = 0
    for (const [userId, sent] of groupByUser(sessions)) {
      const file = NodePath.join(options.dataRoot, userId, "store.db")
      const rows = NodeFs.existsSync(file) ? readStore(file) : { turns: [], facts: [] }
      const turnCounts = countBy(rows.turns.map((turn) => turn.content))
      for (const session of sent) {
        const turns = turnCounts.get(session.turn) ?? 0
        if (turns > 1) {
          duplicated++
          problems.push(`${session.token}: ${turns} copies of its turn`)
        }
        if (session.outcome !== "acknowledged") continue
        if (turns === 0) {
          lost++
          problems.push(`${session.token}: acknowledged turn missing`)
        }
        if (!session.extracted) continue
        const facts = rows.facts.filter((fact) => fact.content.includes(session.token))
        const current = facts.filter((fact) => fact.status !== "superseded")
        if (current.length !== 1) {
          if (current.length === 0) lost++
          else duplicated++
          problems.push(`${session.token}: ${current.length} current versions of its fact (${facts.map((f) => f.status).join(",")})`)
          continue
        }
        if (session.change?.acknowledged !== true) continue
        const changed = facts.find((fact) => fact.fact_id === session.factId)
        const expected = session.change.kind === "archive" ? "archived" : "superseded"
        const replaced = session.change.kind === "archive" || current[0]!.content.includes("since spring")
        if (changed?.status !== expected || !replaced) {
          lost++
          problems.push(`${session.token}: acknowledged ${session.change.kind} not stored (${changed?.status})`)
        }
      }
    }
    return { lost, duplicated }
  }

  const checkIntegrity = () => {
    const files = [
      NodePath.join(options.dataRoot, ".control", "service_control.db"),
      ...NodeFs.readdirSync(options.dataRoot)
        .map((entry) => NodePath.join(options.dataRoot, entry, "store.db"))
        .filter((file) => NodeFs.existsSync(file))
    ]
    let failures = 0
    for (const file of files) {
      const result = integrityOf(file)
      if (result !== "ok") {
        failures++
        problems.push(`integrity_check of ${NodePath.relative(options.dataRoot, file)}: ${result}`)
      }
    }
    return failures
  }

  // The running service, killed if the loop itself fails so that no process outlives it.
  let running: KillableService | undefined
  const startTimed = async () => {
    const started = Date.now()
    running = await options.start()
    slowestRestartMs = Math.max(slowestRestartMs, Date.now() - started)
    return running
  }

  let lostWrites = 0
  let duplicatedWrites = 0
  let integrityFailures = 0
  let starts = 0
  const settle = async (service: KillableService) => {
    await waitForJobs(service.port)
    const verified = verifyStores()
    lostWrites = verified.lost
    duplicatedWrites = verified.duplicated
    integrityFailures += checkIntegrity()
  }

  const crashAndRestart = async (): Promise<CrashLoopReport> => {
    for (let kill = 0; kill < options.kills; kill++) {
      const service = await startTimed()
      starts++
      if (kill > 0) await settle(service)
      let alive = true
      const loops = Array.from({ length: options.clients }, () => clientLoop(service.port, () => alive))
      const [low, high] = options.uptimeMs
      await new Promise((resolve) => setTimeout(resolve, low + random() * (high - low)))
      service.kill("SIGKILL")
      alive = false
      await service.exited
      await Promise.all(loops)
      log(`kill ${kill + 1}/${options.kills}: ${sessions.length} sessions sent, ${problems.length} problems`)
    }
    const last = await startTimed()
    starts++
    await settle(last)
    last.kill("SIGTERM")
    const cleanStop = (await last.exited) === 0
    if (!cleanStop) problems.push("the final SIGTERM did not exit 0")

    const changes = sessions.filter((s) => s.change?.acknowledged === true).length
    return {
      starts,
      kills: options.kills,
      requests,
      acknowledged: sessions.filter((s) => s.outcome === "acknowledged").length + changes,
      cutOff: sessions.filter((s) => s.outcome === "cut_off").length + sessions.filter((s) => s.change?.acknowledged === false).length,
      lostWrites,
      duplicatedWrites,
      jobsNotFinished: sessions.filter((s) => s.jobId !== undefined && s.outcome === "acknowledged").length,
      integrityFailures,
      slowestRestartMs,
      cleanStop,
      problems
    }
  }

  try {
    return await crashAndRestart()
  } catch (error) {
    running?.kill("SIGKILL")
    throw error
  }
}

const groupByUser = (sessions: ReadonlyArray<SentSession>) => {
  const groups = new Map<string, Array<SentSession>>()
  for (const session of sessions) {
    const group = groups.get(session.userId)
    if (group === undefined) groups.set(session.userId, [session])
    else group.push(session)
  }
  return groups
}

const countBy = (values: ReadonlyArray<string>) => {
  const counts = new Map<string, number>()
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1)
  return counts
}

interface StoreRows {
  readonly turns: ReadonlyArray<{ readonly content: string }>
  readonly facts: ReadonlyArray<{ readonly fact_id: string; readonly content: string; readonly status: string }>
}

// Read-only, beside the running service, as WAL allows.
const readStore = (file: string): StoreRows => {
  const db = new Database(file, { readonly: true, fileMustExist: true })
  try {
    // A kill while a store was being created leaves a file without tables, migrated at next use.
    if (db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'turns'").get() === undefined) return { turns: [], facts: [] }
    return {
      turns: db.prepare("SELECT content FROM turns").all() as StoreRows["turns"],
      facts: db.prepare("SELECT fact_id, content, status FROM facts").all() as StoreRows["facts"]
    }
  } finally {
    db.close()
  }
}

const integrityOf = (file: string) => {
  const db = new Database(file, { readonly: true, fileMustExist: true })
  try {
    const rows = db.pragma("integrity_check") as Array<{ integrity_check: string }>
    return rows.map((row) => row.integrity_check).join("; ")
  } finally {
    db.close()
  }
}
