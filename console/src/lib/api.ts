import type {
  ApiKeyList,
  ApiKeySummary,
  ConfigView,
  ContextResponse,
  CreatedApiKey,
  DeleteResult,
  EmbedResult,
  EventList,
  ExploreResult,
  Health,
  Job,
  Json,
  Memory,
  MemoryList,
  RequestLogPage,
  RouteMetrics,
  SearchResponse,
  StatsView,
  UsageReport
} from "./types.js"

/**
 * Every failure of a call, as the service reports it: its error envelope's code, message and
 * details; `http_<status>` when the body is not an envelope; `network_error` (status 0) when no
 * response came back at all; `invalid_response` when a success is not JSON.
 */
export class ApiError extends Error {
  override readonly name = "ApiError"
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Json = {}
  ) {
    super(message)
  }
}

type QueryValue = string | number | boolean | null | undefined

/** A query string of the values that are set: undefined, null and "" are left out. */
export const queryString = (params: Readonly<Record<string, QueryValue>>) => {
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined || value === null || value === "") continue
    search.set(name, String(value))
  }
  const text = search.toString()
  return text === "" ? "" : `?${text}`
}

const isRecord = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

const toApiError = (response: Response, body: unknown) => {
  if (isRecord(body) && typeof body.code === "string" && typeof body.message === "string") {
    return new ApiError(response.status, body.code, body.message, isRecord(body.details) ? body.details : {})
  }
  return new ApiError(response.status, `http_${response.status}`, response.statusText || `HTTP ${response.status}`)
}

export interface ApiClientOptions {
  /** Where the service is; "" is the origin the console was loaded from. */
  readonly baseUrl?: string
  /** The key to send, read on every call so a key entered later applies at once. */
  readonly apiKey: () => string | null
  readonly fetch?: typeof fetch
}

interface Call {
  readonly query?: Readonly<Record<string, QueryValue>>
  readonly body?: unknown
}

const segment = (value: string) => encodeURIComponent(value)

export const createApiClient = (options: ApiClientOptions) => {
  const baseUrl = options.baseUrl ?? ""
  // Called through globalThis: a browser refuses fetch invoked on another receiver.
  const fetchImpl: typeof fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init))

  /** The service's JSON for a call; the console trusts its own service for the shape. */
  const call = async <T>(method: string, path: string, { query = {}, body }: Call = {}): Promise<T> => {
    const headers: Record<string, string> = { accept: "application/json" }
    const key = options.apiKey()
    if (key !== null && key !== "") headers.authorization = `Bearer ${key}`
    if (body !== undefined) headers["content-type"] = "application/json"
    let response: Response
    try {
      response = await fetchImpl(`${baseUrl}${path}${queryString(query)}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
    } catch (error) {
      throw new ApiError(0, "network_error", error instanceof Error ? error.message : String(error))
    }
    const text = await response.text()
    const parsed = text === "" ? undefined : parseJson(text)
    if (!response.ok) throw toApiError(response, parsed)
    if (text !== "" && parsed === undefined) {
      throw new ApiError(response.status, "invalid_response", "the service answered with something other than JSON")
    }
    return parsed as T
  }

  return {
    health: () => call<Health>("GET", "/health"),
    config: () => call<ConfigView>("GET", "/v1/admin/config"),
    stats: () => call<StatsView>("GET", "/v1/admin/stats"),

    listMemories: (query: { readonly user_id: string; readonly offset: number; readonly limit: number }) =>
      call<MemoryList>("GET", "/v1/memories", { query }),
    getMemory: (id: string, userId: string) => call<Memory>("GET", `/v1/memories/${segment(id)}`, { query: { user_id: userId } }),
    deleteMemory: (id: string, userId: string, purge: boolean) =>
      call<DeleteResult>("DELETE", `/v1/memories/${segment(id)}`, { query: { user_id: userId, purge: purge ? "true" : undefined } }),
    events: (query: { readonly user_id: string; readonly limit: number }) => call<EventList>("GET", "/v1/events", { query }),
    explore: (query: { readonly user_id: string; readonly start_id: string; readonly depth: number; readonly limit: number }) =>
      call<ExploreResult>("GET", "/v1/explore", { query }),

    search: (body: { readonly user_id: string; readonly query: string; readonly top_k: number }) =>
      call<SearchResponse>("POST", "/v1/search", { body }),
    context: (query: { readonly user_id: string; readonly query: string; readonly token_budget: number }) =>
      call<ContextResponse>("GET", "/v1/context", { query }),

    job: (id: string) => call<Job>("GET", `/v1/jobs/${segment(id)}`),

    embed: (body: { readonly user_id?: string; readonly batch_size: number; readonly max_processing_time_sec: number }) =>
      call<EmbedResult>("POST", "/v1/maintenance/embed", { body }),

    listKeys: () => call<ApiKeyList>("GET", "/v1/admin/keys"),
    createKey: (name: string) => call<CreatedApiKey>("POST", "/v1/admin/keys", { body: { name } }),
    revokeKey: (id: string) => call<ApiKeySummary>("DELETE", `/v1/admin/keys/${segment(id)}`),
    requests: (query: { readonly limit: number; readonly offset: number }) => call<RequestLogPage>("GET", "/v1/admin/requests", { query }),
    metrics: () => call<RouteMetrics>("GET", "/v1/metrics"),
    usage: () => call<UsageReport>("GET", "/v1/usage")
  }
}

export type ApiClient = ReturnType<typeof createApiClient>
