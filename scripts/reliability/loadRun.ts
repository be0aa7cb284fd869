/**
 * Mixed load against a running service: each client, bound to one user, loops for a fixed time
 * over sync extracted ingests, search, context, corrections (supersede) and archives of the
 * memories it stored itself. Every answer but the expected one is an error; at the end each
 * user's count of current memories must be exactly what the clients' acknowledged writes imply.
 *
 * Shared by `npm run bench:load` (long run, with figures) and a short test in CI.
 */
import { seededRandom } from "./random.js"

export type LoadRoute = "ingest" | "search" | "context" | "supersede" | "archive"

export interface LoadOptions {
  readonly baseUrl: string
  readonly apiKey: string
  readonly clients: number
  readonly users: number
  readonly seconds: number
  readonly seed: number
}

export interface LoadReport {
  readonly elapsedS: number
  readonly requests: number
  /** Error kinds ("<route> <status> <code>", network failures, consistency misses) with counts. */
  readonly errors: ReadonlyMap<string, number>
  readonly latencies: ReadonlyMap<LoadRoute, ReadonlyArray<number>>
  /** Users whose count of current memories differs from what their clients stored. */
  readonly wrongCounts: ReadonlyArray<string>
}

/** What a client knows it stored: one current memory per live token. */
interface ClientState {
  readonly userId: string
  readonly live: Array<string>
  next: number
}

export const runLoad = async (options: LoadOptions): Promise<LoadReport> => {
  const latencies = new Map<LoadRoute, Array<number>>()
  const errors = new Map<string, number>()
  const random = seededRandom(options.seed)
  let requests = 0
  const countError = (kind: string) => errors.set(kind, (errors.get(kind) ?? 0) + 1)
  const authorization = `Bearer ${options.apiKey}`

  /** One timed request; anything but a 200 counts as an error of its route. */
  const timed = async (route: LoadRoute, method: string, path: string, body?: unknown) => {
    const started = performance.now()
    requests++
    try {
      const response = await fetch(`${options.baseUrl}${path}`, {
        method,
        headers: { authorization, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      const parsed = await response.json() as Record<string, unknown>
      const bucket = latencies.get(route) ?? []
      bucket.push(performance.now() - started)
      latencies.set(route, bucket)
      if (response.status === 200) return parsed
      countError(`${route} ${response.status} ${String(parsed.code)}`)
    } catch (error) {
      // fetch says only "fetch failed": what failed is its cause (a reset, a closed socket).
      const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : ""
      countError(`${route} network ${error instanceof Error ? error.message : "failure"}${cause}`)
    }
    return undefined
  }

  const findFact = async (client: ClientState, token: string) => {
    const found = await timed("search", "POST", "/v1/search", { user_id: client.userId, query: token, top_k: 5 })
    if (found === undefined) return undefined
    const hits = (found.hits ?? []) as Array<{ content: string; metadata: { fact_id?: unknown } }>
    const factId = hits.find((hit) => typeof hit.metadata.fact_id === "string" && hit.content.includes(token))?.metadata.fact_id
    if (typeof factId === "string") return factId
    countError("search missed a memory its client stored")
    return undefined
  }

  const step = async (client: ClientState, index: number) => {
    const roll = random()
    const token = client.live[Math.floor(random() * client.live.length)]
    if (roll < 0.3 || token === undefined) {
      // One statement the stub model turns into one fact naming a fresh token.
      const fresh = `Ld${index}n${client.next++}z`
      const stored = await timed("ingest", "POST", "/v1/memories", {
        user_id: client.userId,
        async_mode: false,
        infer: true,
        messages: [{ role: "user", content: `${fresh} is my favourite word.` }]
      })
      if (stored?.facts_extracted === 1) client.live.push(fresh)
      else if (stored !== undefined) countError(`ingest extracted ${String(stored.facts_extracted)} facts`)
    } else if (roll < 0.55) {
      await timed("search", "POST", "/v1/search", { user_id: client.userId, query: "favourite word", top_k: 10 })
    } else if (roll < 0.75) {
      await timed("context", "GET", `/v1/context?user_id=${client.userId}&query=${encodeURIComponent(token)}&token_budget=1000`)
    } else {
      const factId = await findFact(client, token)
      if (factId === undefined) return
      const path = `/v1/memories/${encodeURIComponent(factId)}`
      if (roll < 0.875) {
        await timed("supersede", "PATCH", path, { user_id: client.userId, content: `${token} is my favourite word since ${index}.` })
      } else {
        const archived = await timed("archive", "DELETE", `${path}?user_id=${client.userId}`)
        if (archived?.deleted === true) client.live.splice(client.live.indexOf(token), 1)
        else if (archived !== undefined) countError("archive of a current memory answered deleted: false")
      }
    }
  }

  const clients: Array<ClientState> = Array.from({ length: options.clients }, (_, c) => ({
    userId: `load_u${c % options.users}`,
    live: [],
    next: 0
  }))
  const deadline = Date.now() + options.seconds * 1000
  const started = performance.now()
  await Promise.all(clients.map(async (client, c) => {
    for (let i = 0; Date.now() < deadline; i++) await step(client, c * 1_000_000 + i)
  }))
  const elapsedS = (performance.now() - started) / 1000

  const wrongCounts: Array<string> = []
  for (let u = 0; u < options.users; u++) {
    const userId = `load_u${u}`
    const expected = clients.filter((client) => client.userId === userId).reduce((sum, client) => sum + client.live.length, 0)
    const listed = await fetch(`${options.baseUrl}/v1/memories?user_id=${userId}&limit=1`, { headers: { authorization } })
    const total = (await listed.json() as { total: number }).total
    if (total !== expected) wrongCounts.push(`${userId}: ${total} current memories, expected ${expected}`)
  }
  return { elapsedS, requests, errors, latencies, wrongCounts }
}
