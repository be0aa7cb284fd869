import { HttpClientError } from "@effect/platform"
import { Effect, Layer, Option, ParseResult, Redacted } from "effect"
import { ERROR_CATALOGUE, isApiError } from "../api/errors.js"
import { AddMemoriesResult } from "../api/MemoriesApi.js"
import { type EffectClient, makeClient } from "../client/index.js"
import { MemoryBackend, ToolFailure } from "./backend.js"
import type { McpSettings } from "./config.js"

const UNAUTHORIZED_HINT = " (set SERVICE_API_KEY to a valid key for this service)"

/** Any failure of a client call, as the one line a tool reports (never a crash). */
export const toToolFailure = (apiUrl: string) => (error: unknown): ToolFailure => {
  if (isApiError(error)) {
    const { code, status } = ERROR_CATALOGUE[error._tag]
    return new ToolFailure({ code, message: status === 401 ? error.message + UNAUTHORIZED_HINT : error.message })
  }
  if (HttpClientError.isHttpClientError(error)) {
    if (error._tag === "ResponseError") {
      const status = error.response.status
      const hint = status === 401 ? UNAUTHORIZED_HINT : ""
      return new ToolFailure({ code: `http_${status}`, message: `unexpected answer from ${apiUrl}${hint}` })
    }
    return new ToolFailure({ code: "connection_failed", message: `cannot reach the service at ${apiUrl} (is it running? set SERVICE_API_URL)` })
  }
  if (ParseResult.isParseError(error)) return new ToolFailure({ code: "invalid_response", message: error.message })
  return new ToolFailure({ code: "internal_error", message: String(error) })
}

/** The tools' backend over HTTP: every call goes through the client derived from the API definition. */
export const clientBackendLayer = (settings: McpSettings) =>
  Layer.effect(
    MemoryBackend,
    Effect.gen(function*() {
      // Made at the first tool call, not before the server answers initialize and tools/list.
      const madeClient = yield* Effect.cached(makeClient({
        baseUrl: settings.apiUrl,
        ...Option.match(settings.apiKey, { onNone: () => ({}), onSome: (key) => ({ apiKey: Redacted.value(key) }) })
      }))
      const fail = toToolFailure(settings.apiUrl)
      // Ingest may extract with an LLM, so it gets longer than the reads (as the reference does).
      const bounded = <A, E>(call: (client: EffectClient) => Effect.Effect<A, E>, seconds = 15) =>
        Effect.flatMap(madeClient, call).pipe(
          Effect.timeoutFail({ duration: `${seconds} seconds`, onTimeout: () => new ToolFailure({ code: "timeout", message: `no answer from ${settings.apiUrl} in ${seconds} s` }) }),
          Effect.mapError((error) => error instanceof ToolFailure ? error : fail(error))
        )
      return {
        search: (payload) =>
          bounded((client) => client.retrieval.search({ payload })).pipe(
            Effect.map(({ degraded, hits }) => ({ evidence: hits.map((hit) => hit.metadata), degraded }))
          ),
        context: (request) =>
          bounded((client) => client.retrieval.contextGet({
            urlParams: { user_id: request.user_id, query: request.query, token_budget: request.token_budget, ...projectParam(request.project_id) }
          })),
        list: (urlParams) => bounded((client) => client.memories.list({ urlParams })),
        timeline: (urlParams) => bounded((client) => client.graph.entityTimeline({ urlParams })),
        explore: (urlParams) => bounded((client) => client.graph.explore({ urlParams })),
        refine: (payload) => bounded((client) => client.graph.refine({ payload })),
        add: (payload) =>
          bounded((client) => client.memories.add({ payload }), 120).pipe(
            Effect.flatMap((result) =>
              result instanceof AddMemoriesResult
                ? Effect.succeed(result)
                : Effect.fail(new ToolFailure({ code: "unexpected_job", message: `the service queued job ${result.job_id} instead of storing now` })))
          ),
        remove: (memory_id, { user_id }) => bounded((client) => client.memories.delete({ path: { memory_id }, urlParams: { user_id, purge: false } }))
      }
    })
  )

/** The query builder drops absent and empty values, as the reference's does. */
const projectParam = (projectId: string | null | undefined) =>
  projectId === null || projectId === undefined || projectId === "" ? {} : { project_id: projectId }
