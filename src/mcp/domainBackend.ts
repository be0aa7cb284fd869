import { Effect, Layer, ParseResult, Schema } from "effect"
import { ERROR_CATALOGUE, isApiError } from "../api/errors.js"
import { ExploreQuery, RefineRequest, TimelineQuery } from "../api/GraphApi.js"
import { AddMemoriesRequest, ListMemoriesQuery } from "../api/MemoriesApi.js"
import { Text } from "../api/text.js"
import { ContextRequest, SearchRequest } from "../api/RetrievalApi.js"
import { ContextBuilder } from "../services/recall/ContextBuilder.js"
import { Graph } from "../services/graph/Graph.js"
import { Ingest } from "../services/ingest/Ingest.js"
import { MemoryReads } from "../services/memories/MemoryReads.js"
import { MemoryWrites } from "../services/memories/MemoryWrites.js"
import { Retrieval } from "../services/recall/Retrieval.js"
import { MemoryBackend, ToolFailure } from "./backend.js"

/** The tools' audit identity: the MCP runtime does not hand a tool the HTTP request it came in on. */
const MCP_AUDIT = { actor: "mcp", requestId: null }

const toToolFailure = (error: unknown): ToolFailure => {
  if (isApiError(error)) return new ToolFailure({ code: ERROR_CATALOGUE[error._tag].code, message: error.message })
  if (ParseResult.isParseError(error)) return new ToolFailure({ code: "validation_error", message: error.message })
  return new ToolFailure({ code: "internal_error", message: String(error) })
}

/** The route's own schema checks what the HTTP edge would have (bounds, date formats, the text rule) before the service runs. */
const checked = <A, I, B, E>(schema: Schema.Schema<A, I>, request: A, run: (valid: A) => Effect.Effect<B, E>) =>
  Schema.validate(schema)(request).pipe(Effect.flatMap(run), Effect.mapError(toToolFailure))

/** The tools' backend inside the server (`/mcp`): the domain services the HTTP handlers call. */
export const DomainBackendLive = Layer.effect(
  MemoryBackend,
  Effect.gen(function*() {
    const retrieval = yield* Retrieval
    const context = yield* ContextBuilder
    const reads = yield* MemoryReads
    const graph = yield* Graph
    const ingest = yield* Ingest
    const writes = yield* MemoryWrites
    return {
      search: (request) =>
        checked(SearchRequest, request, retrieval.search).pipe(Effect.map(({ degraded, items }) => ({ evidence: items, degraded }))),
      context: (request) => checked(ContextRequest, request, context.build),
      list: (params) => checked(ListMemoriesQuery, params, reads.list),
      timeline: (params) => checked(TimelineQuery, params, graph.timeline),
      explore: (params) => checked(ExploreQuery, params, graph.explore),
      refine: (request) => checked(RefineRequest, request, graph.refine),
      add: (request) => checked(AddMemoriesRequest, request, (valid) => ingest.now(valid, MCP_AUDIT)),
      remove: (memoryId, { user_id }) => checked(Text, memoryId, (valid) => writes.remove(valid, { user_id, purge: false }, MCP_AUDIT))
    }
  })
)
