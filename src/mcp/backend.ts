import { Context, Data, type Effect } from "effect"
import type { ExploreResult, EntityTimeline, RefineRequest, RefineResponse } from "../api/GraphApi.js"
import type { AddMemoriesRequest, AddMemoriesResult, DeleteResult, MemoryList } from "../api/MemoriesApi.js"
import type { ContextRequest, ContextResponse, Degraded, SearchRequest } from "../api/RetrievalApi.js"

/** Why a tool call failed, as the tool result says it: `"<code>: <message>"`. */
export class ToolFailure extends Data.TaggedError("ToolFailure")<{ readonly code: string; readonly message: string }> {
  get line() {
    return `${this.code}: ${this.message}`
  }
}

/** Search evidence: the metadata of each hit (the whole evidence item), and the legs that could not run. */
export interface SearchEvidence {
  readonly evidence: ReadonlyArray<{ readonly [key: string]: unknown }>
  readonly degraded: ReadonlyArray<Degraded>
}

type Scoped = { readonly user_id: string }

/**
 * The service as the tools see it. Over stdio it is the derived HTTP client; inside the server
 * (the `/mcp` endpoint) it is the domain services themselves.
 */
export interface MemoryBackendService {
  readonly search: (request: SearchRequest) => Effect.Effect<SearchEvidence, ToolFailure>
  readonly context: (request: ContextRequest) => Effect.Effect<ContextResponse, ToolFailure>
  readonly list: (params: Scoped & { readonly offset: number; readonly limit: number }) => Effect.Effect<MemoryList, ToolFailure>
  readonly timeline: (params: Scoped & { readonly entity_id: string }) => Effect.Effect<EntityTimeline, ToolFailure>
  readonly explore: (
    params: Scoped & { readonly start_id: string; readonly depth: number; readonly limit: number }
  ) => Effect.Effect<ExploreResult, ToolFailure>
  readonly refine: (request: RefineRequest) => Effect.Effect<RefineResponse, ToolFailure>
  readonly add: (request: AddMemoriesRequest) => Effect.Effect<AddMemoriesResult, ToolFailure>
  readonly remove: (memoryId: string, params: Scoped) => Effect.Effect<DeleteResult, ToolFailure>
}

export class MemoryBackend extends Context.Tag("Memory/McpBackend")<MemoryBackend, MemoryBackendService>() {}

/** Defaults the tools fall back on when an argument is left out. */
export class ToolDefaults extends Context.Tag("Memory/McpToolDefaults")<ToolDefaults, {
  readonly userId: string | undefined
  readonly projectId: string | undefined
}>() {}
