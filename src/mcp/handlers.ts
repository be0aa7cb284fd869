import { McpServer } from "@effect/ai"
import { Effect, Layer } from "effect"
import * as NodeCrypto from "node:crypto"
import { MemoryBackend, ToolDefaults, ToolFailure } from "./backend.js"
import { AllTools, ReadTools } from "./tools.js"

const USER_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/

/** The argument, else SERVICE_USER_ID; checked here so a bad id never reaches the service. */
const resolveUserId = (argument: string | undefined, fallback: string | undefined): Effect.Effect<string, ToolFailure> => {
  const userId = argument !== undefined && argument.trim() !== "" ? argument.trim() : fallback
  if (userId === undefined) {
    return Effect.fail(new ToolFailure({ code: "missing_user_id", message: "pass user_id or set SERVICE_USER_ID" }))
  }
  if (!USER_ID.test(userId) || /^\.+$/.test(userId)) {
    return Effect.fail(new ToolFailure({ code: "invalid_user_id", message: `user_id ${JSON.stringify(userId)} must match ${USER_ID.source}` }))
  }
  return Effect.succeed(userId)
}

const clamp = (value: number | undefined, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER) =>
  value === undefined ? fallback : Math.min(max, Math.max(min, Math.trunc(value)))

/** The evidence fields an agent uses; the rest of a hit (routes, fusion internals) is noise to it. */
const HIT_FIELDS = ["fact_id", "evidence_id", "support_text", "confidence", "occurred_start", "valid_from", "valid_until", "valid_to", "source_session_id", "status"] as const

const pick = (item: { readonly [key: string]: unknown }) => Object.fromEntries(HIT_FIELDS.map((key) => [key, item[key] ?? null]))

/** A tool reports its failure as the one line; nothing escapes as a crash. */
const asLine = <A, R>(effect: Effect.Effect<A, ToolFailure, R>) => Effect.mapError(effect, (failure) => failure.line)

const readHandlers = Effect.gen(function*() {
  const backend = yield* MemoryBackend
  const defaults = yield* ToolDefaults
  const user = (argument: string | undefined) => resolveUserId(argument, defaults.userId)
  const project = (argument: string | undefined) => argument ?? defaults.projectId ?? null
  return {
    search_memory: (params: { readonly query: string; readonly user_id?: string | undefined; readonly top_k?: number | undefined; readonly project_id?: string | undefined }) =>
      user(params.user_id).pipe(
        Effect.flatMap((user_id) =>
          backend.search({ user_id, project_id: project(params.project_id), query: params.query, top_k: clamp(params.top_k, 10, 1, 100), include_superseded: false })),
        Effect.map(({ degraded, evidence }) => ({
          hits: evidence.filter((item) => typeof item.fact_id === "string").map(pick),
          degraded
        })),
        asLine
      ),
    get_context: (params: { readonly query: string; readonly user_id?: string | undefined; readonly token_budget?: number | undefined; readonly project_id?: string | undefined }) =>
      user(params.user_id).pipe(
        Effect.flatMap((user_id) =>
          backend.context({ user_id, project_id: project(params.project_id), query: params.query, token_budget: clamp(params.token_budget, 2000, 100, 32_000) })),
        Effect.map(({ citations, degraded, evidence, text }) => ({ text, citations, evidence_count: evidence.length, degraded })),
        asLine
      ),
    list_memories: (params: { readonly user_id?: string | undefined; readonly limit?: number | undefined; readonly offset?: number | undefined }) =>
      user(params.user_id).pipe(
        Effect.flatMap((user_id) => backend.list({ user_id, limit: clamp(params.limit, 50, 1, 200), offset: clamp(params.offset, 0, 0) })),
        Effect.map(({ memories, total }) => ({
          total,
          memories: memories.map(({ confidence, content, id, kind, occurred_at, status, valid_from, valid_until }) =>
            ({ id, content, kind, status, occurred_at, valid_from, valid_until, confidence }))
        })),
        asLine
      ),
    entity_timeline: (params: { readonly entity_id: string; readonly user_id?: string | undefined }) =>
      user(params.user_id).pipe(Effect.flatMap((user_id) => backend.timeline({ user_id, entity_id: params.entity_id })), asLine),
    explore_memory: (params: { readonly start_id: string; readonly user_id?: string | undefined; readonly depth?: number | undefined; readonly limit?: number | undefined }) =>
      user(params.user_id).pipe(
        Effect.flatMap((user_id) =>
          backend.explore({ user_id, start_id: params.start_id, depth: clamp(params.depth, 1, 1, 3), limit: clamp(params.limit, 25, 1, 100) })),
        asLine
      ),
    refine_search: (params: {
      readonly query: string
      readonly user_id?: string | undefined
      readonly top_k?: number | undefined
      readonly entity?: string | undefined
      readonly session_id?: string | undefined
      readonly min_confidence?: number | undefined
      readonly occurred_from?: string | undefined
      readonly occurred_to?: string | undefined
    }) =>
      user(params.user_id).pipe(
        Effect.flatMap((user_id) =>
          backend.refine({
            user_id,
            query: params.query,
            top_k: clamp(params.top_k, 10, 1, 100),
            entity: params.entity ?? "",
            session_id: params.session_id ?? "",
            min_confidence: params.min_confidence ?? null,
            occurred_from: params.occurred_from ?? null,
            occurred_to: params.occurred_to ?? null
          })),
        asLine
      )
  }
})

const writeHandlers = Effect.gen(function*() {
  const backend = yield* MemoryBackend
  const defaults = yield* ToolDefaults
  return {
    add_memories: (params: {
      readonly messages: ReadonlyArray<{ readonly role?: "user" | "assistant" | "system" | undefined; readonly content: string }>
      readonly user_id?: string | undefined
      readonly session_id?: string | undefined
      readonly session_time?: string | undefined
      readonly project_id?: string | undefined
    }) =>
      resolveUserId(params.user_id, defaults.userId).pipe(
        Effect.flatMap((user_id) =>
          backend.add({
            user_id,
            project_id: params.project_id ?? defaults.projectId ?? null,
            messages: params.messages.map(({ content, role }) => ({ role: role ?? "user", content })),
            session_id: params.session_id ?? `mcp_${NodeCrypto.randomBytes(6).toString("hex")}`,
            session_time: params.session_time ?? new Date().toISOString(),
            infer: true,
            async_mode: false
          })),
        Effect.map(({ facts_extracted, session_id, spans_written, turns_written }) => ({ session_id, turns_written, spans_written, facts_extracted })),
        asLine
      ),
    delete_memory: (params: { readonly memory_id: string; readonly user_id?: string | undefined }) =>
      resolveUserId(params.user_id, defaults.userId).pipe(
        Effect.flatMap((user_id) => backend.remove(params.memory_id, { user_id })),
        Effect.map(({ already_deleted, deleted, id }) => ({ id, deleted, already_deleted })),
        asLine
      )
  }
})

/** The MCP tools over a backend: the read tools always, the write tools only when allowed. */
export const toolsLayer = (allowWrite: boolean): Layer.Layer<never, never, MemoryBackend | ToolDefaults> =>
  allowWrite
    ? McpServer.toolkit(AllTools).pipe(
      Layer.provide(AllTools.toLayer(Effect.map(Effect.all([readHandlers, writeHandlers]), ([reads, writes]) => ({ ...reads, ...writes }))))
    )
    : McpServer.toolkit(ReadTools).pipe(Layer.provide(ReadTools.toLayer(readHandlers)))
