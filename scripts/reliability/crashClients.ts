/**
 * The crash runs' clients: sync and async ingests (verbatim and extracted through the LLM stub),
 * corrections and archives, each recorded with what its answer lets us expect of the store.
 */

/** A service a request can be sent to; `killed` tells whether a failed request was cut off by a kill. */
export interface Target {
  readonly port: number
  readonly killed: () => boolean
  /** Where the service process's output is kept, when it is. */
  readonly log?: string | undefined
}

/** A 5xx answer other than 503: never acceptable, reported with what finds it in the service's log. */
export interface ServerError {
  readonly method: string
  /** The route template, e.g. `/v1/memories/{fact_id}`. */
  readonly route: string
  readonly status: number
  /** The error envelope as answered (at most 500 characters). */
  readonly body: string
  /** The request id the service logged the request under (its X-Request-ID). */
  readonly requestId: string
  readonly log?: string | undefined
}

export type Outcome = "acknowledged" | "cut_off" | "refused"

/** A session the service acknowledged (200, or 202 with a job), refused, or that was cut off by a kill. */
export interface SentSession {
  readonly userId: string
  readonly token: string
  readonly turn: string
  readonly extracted: boolean
  outcome: Outcome
  jobId?: string | undefined
  /** Known once the fact was found through search; corrections and archives act on it. */
  factId?: string
  /** Picked by one client for a correction or an archive, so that no other client acts on it too. */
  claimed?: boolean
  /** Set when a correction or archive of its fact was sent: then its fact's state is settled by it. */
  change?: { readonly kind: "supersede" | "archive"; outcome: Outcome }
}

export interface WorkloadOptions {
  readonly seed: number
  readonly users: number
  readonly apiKey: string
  readonly random: () => number
  /** Whether `503 vector_store_unavailable` is an expected refusal (the database is being restarted) rather than a problem. */
  readonly outagesExpected: boolean
  /** A request unanswered for this long is a problem: the service must answer, if only with a 503. */
  readonly answerWithinMs: number
  readonly problems: Array<string>
}

interface Answer {
  readonly status: number
  readonly body: Record<string, unknown>
  /** A 503 `vector_store_unavailable` while outages are expected: the write was refused, not lost. */
  readonly refused: boolean
}

const TERMINAL = new Set(["succeeded", "failed"])

const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? Object.fromEntries(Object.entries(value)) : {}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export const makeWorkload = (options: WorkloadOptions) => {
  const { random, problems } = options
  const sessions: Array<SentSession> = []
  const stats = { requests: 0, refused: 0, slowestAnswerMs: 0 }
  const serverErrors: Array<ServerError> = []
  let sequence = 0

  /**
   * Sends one request, under a request id of its own that the service logs it with; undefined
   * when it got no answer (a kill cut it off, or a problem was noted).
   */
  const call = async (target: Target, method: string, route: string, path: string, body?: unknown): Promise<Answer | undefined> => {
    const sent = `crash${options.seed}-${++stats.requests}`
    const started = Date.now()
    const where = `${method} ${route}, request ${sent}${target.log === undefined ? "" : ` (${target.log})`}`
    try {
      const response = await fetch(`http://127.0.0.1:${target.port}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${options.apiKey}`,
          "x-request-id": sent,
          ...(body === undefined ? {} : { "content-type": "application/json" })
        },
        signal: AbortSignal.timeout(options.answerWithinMs),
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      const answer = record(await response.json())
      stats.slowestAnswerMs = Math.max(stats.slowestAnswerMs, Date.now() - started)
      const refused = options.outagesExpected && response.status === 503 && answer.code === "vector_store_unavailable"
      const requestId = response.headers.get("x-request-id") ?? sent
      if (refused) stats.refused++
      else if (response.status >= 500) problems.push(`${where} answered ${response.status}: ${JSON.stringify(answer).slice(0, 200)}`)
      if (response.status >= 500 && response.status !== 503) {
        serverErrors.push({ method, route, status: response.status, body: JSON.stringify(answer).slice(0, 500), requestId, log: target.log })
      }
      return { status: response.status, body: answer, refused }
    } catch (error) {
      if (!target.killed()) problems.push(`${where}: no answer after ${Date.now() - started} ms without a kill (${String(error)})`)
      return undefined
    }
  }

  /** The outcome of a write's answer; a non-2xx answer other than an expected 503 is a problem. */
  const outcomeOf = (what: string, answer: Answer | undefined, acknowledged: (answer: Answer) => boolean): Outcome => {
    if (answer === undefined) return "cut_off"
    if (acknowledged(answer)) return "acknowledged"
    if (!answer.refused && answer.status < 500) problems.push(`${what} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 200)}`)
    return "refused"
  }

  const ingest = async (target: Target) => {
    const n = sequence++
    const token = `Kw${options.seed}x${n}q`
    const extracted = random() < 0.5
    const asyncMode = random() < 0.5
    const userId = `crash_u${n % options.users}`
    // An extracted session is one statement the stub model turns into one fact naming the token.
    const turn = extracted ? `${token} is my favourite word.` : `crash note ${token}`
    const session: SentSession = { userId, token, turn, extracted, outcome: "cut_off" }
    sessions.push(session)
    const sent = await call(target, "POST", "/v1/memories", "/v1/memories", {
      user_id: userId,
      session_id: `crash-${n}`,
      infer: extracted,
      async_mode: asyncMode,
      messages: [{ role: "user", content: turn }]
    })
    session.outcome = outcomeOf("ingest", sent, (answer) => answer.status === 200 || answer.status === 202)
    if (sent?.status === 202) session.jobId = String(sent.body.job_id)
  }

  /** Finds the fact of an acknowledged extracted session through search, then corrects or archives it. */
  const change = async (target: Target) => {
    const candidates = sessions.filter((s) => s.extracted && s.outcome === "acknowledged" && s.jobId === undefined && s.claimed !== true)
    const session = candidates[Math.floor(random() * candidates.length)]
    if (session === undefined) return ingest(target)
    session.claimed = true
    const found = await call(target, "POST", "/v1/search", "/v1/search", { user_id: session.userId, query: session.token, top_k: 5 })
    if (found === undefined || found.refused) {
      // Nothing was changed: another client may pick it later.
      session.claimed = false
      return
    }
    const hits = Array.isArray(found.body.hits) ? found.body.hits.map(record) : []
    const factId = hits.map((hit) => ({ content: String(hit.content), factId: record(hit.metadata).fact_id }))
      .find((hit) => typeof hit.factId === "string" && hit.content.includes(session.token))?.factId
    if (found.status !== 200 || typeof factId !== "string") {
      problems.push(`search did not find the acknowledged fact ${session.token} (${found.status})`)
      return
    }
    session.factId = factId
    const path = `/v1/memories/${encodeURIComponent(factId)}`
    if (random() < 0.5) {
      session.change = { kind: "supersede", outcome: "cut_off" }
      const corrected = await call(target, "PATCH", "/v1/memories/{fact_id}", path, { user_id: session.userId, content: `${session.token} is my favourite word since spring.` })
      session.change.outcome = outcomeOf("correction", corrected, (answer) => answer.status === 200)
    } else {
      session.change = { kind: "archive", outcome: "cut_off" }
      const archived = await call(target, "DELETE", "/v1/memories/{fact_id}", `${path}?user_id=${session.userId}`)
      session.change.outcome = outcomeOf("archive", archived, (answer) => answer.status === 200 && answer.body.deleted === true)
    }
  }

  /** Sends requests to the services `pick` offers until told to stop; waits while none is up. */
  const client = async (pick: () => Target | undefined, running: () => boolean) => {
    while (running()) {
      const target = pick()
      if (target === undefined) await sleep(20)
      else await (random() < 0.8 ? ingest(target) : change(target))
    }
  }

  /** Waits for every accepted job to end; a failed job, or one still unfinished after a minute, is a problem. */
  const waitForJobs = async (pick: () => Target | undefined) => {
    const deadline = Date.now() + 60_000
    for (const session of sessions.filter((s) => s.jobId !== undefined && s.outcome === "acknowledged")) {
      let status = ""
      while (!TERMINAL.has(status) && Date.now() < deadline) {
        const target = pick()
        const job = target === undefined ? undefined : await call(target, "GET", "/v1/jobs/{job_id}", `/v1/jobs/${session.jobId}`)
        status = String(job?.body.status)
        if (!TERMINAL.has(status)) await sleep(50)
      }
      if (status === "failed") problems.push(`job ${session.jobId} failed`)
      if (!TERMINAL.has(status)) problems.push(`job ${session.jobId} still ${status} after a minute`)
      else session.jobId = undefined
    }
  }

  /** Whether the service answers a read that needs the database (for a user who has no data). */
  const answers = async (target: Target) => (await call(target, "POST", "/v1/search", "/v1/search", { user_id: "crash_probe", query: "probe" }))?.status === 200

  const tally = () => {
    const changes = sessions.flatMap((s) => s.change === undefined ? [] : [s.change.outcome])
    const count = (outcome: Outcome) => sessions.filter((s) => s.outcome === outcome).length + changes.filter((o) => o === outcome).length
    return {
      acknowledged: count("acknowledged"),
      cutOff: count("cut_off"),
      refused: count("refused"),
      jobsNotFinished: sessions.filter((s) => s.jobId !== undefined && s.outcome === "acknowledged").length
    }
  }

  return { sessions, stats, serverErrors, client, waitForJobs, answers, tally }
}
