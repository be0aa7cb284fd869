import { Either } from "effect"
import { AddMemoriesResult } from "../../api/MemoriesApi.js"
import type { MemoryClient } from "./client.js"
import { attempt, MemoryFailure } from "./failure.js"
import type { Subject } from "./reads.js"
import { scoped } from "./scope.js"
import type { ContextInput, ForgetInput, RecallInput, RememberInput } from "./toolSchemas.js"
import type { ContextResult, ForgetResult, RecallResult, RememberResult, ToolError } from "./toolResults.js"

export interface MemoryToolsOptions {
  readonly client: MemoryClient
  /** Session the remembered statements are filed under (default: one the service makes per call). */
  readonly sessionId?: string
  /** Extract facts from what is remembered with the service's LLM (default true), or keep it verbatim. */
  readonly infer?: boolean
  /** Token budget of the context tool's block (default 600). */
  readonly contextTokens?: number
}

/** How much of a memory's text a recall result carries: enough to answer, little enough for many hits. */
const TEXT_CHARS = 300
const DEFAULT_LIMIT = 5

const clip = (text: string) => text.length <= TEXT_CHARS ? text : `${text.slice(0, TEXT_CHARS - 1)}…`
const rounded = (score: number | null) => score === null ? null : Math.round(score * 1000) / 1000

/**
 * The four memory tools for one subject, framework-neutral: each resolves to a short typed
 * result, an error included, and never rejects.
 */
export const toolRunners = (options: MemoryToolsOptions, subject: Subject) => {
  const { client } = options
  const failed = (tool: string) => (failure: MemoryFailure): ToolError => {
    client.note("toolErrors", `the ${tool} tool answered with an error`, failure.line)
    return { ok: false, error: { code: failure.code, message: failure.message } }
  }
  const who = scoped(subject.userId, subject.scope)
  return {
    remember: async ({ content }: RememberInput): Promise<RememberResult> => {
      const answer = await attempt(client, client.api.memories.add({
        payload: {
          ...who,
          messages: [{ role: "user", content }],
          ...(options.sessionId === undefined ? {} : { session_id: options.sessionId }),
          infer: options.infer ?? true,
          async_mode: false
        }
      }), client.writeTimeoutMs)
      return Either.match(answer, {
        onLeft: failed("remember"),
        onRight: (result) =>
          result instanceof AddMemoriesResult
            ? { ok: true, session_id: result.session_id, facts_extracted: result.facts_extracted }
            : { ok: true, session_id: result.session_id, facts_extracted: 0 }
      })
    },
    recall: async ({ query, limit }: RecallInput): Promise<RecallResult> => {
      const answer = await attempt(client, client.api.retrieval.search({
        payload: { ...who, query, top_k: limit ?? DEFAULT_LIMIT, include_superseded: false }
      }))
      return Either.match(answer, {
        onLeft: failed("recall"),
        onRight: ({ hits }) => ({
          ok: true,
          memories: hits.map((hit) => ({
            id: hit.id,
            text: clip(hit.content),
            score: rounded(hit.score),
            session_id: hit.session_id,
            occurred_at: hit.occurred_at
          }))
        })
      })
    },
    context: async ({ query }: ContextInput): Promise<ContextResult> => {
      const answer = await attempt(client, client.api.retrieval.context({ payload: { ...who, query, token_budget: options.contextTokens ?? 600 } }))
      return Either.match(answer, {
        onLeft: failed("context"),
        onRight: (result) => ({ ok: true, context: result.text, citations: result.citations })
      })
    },
    forget: async ({ id }: ForgetInput): Promise<ForgetResult> => {
      const answer = await attempt(client, client.api.memories.delete({ path: { memory_id: id }, urlParams: { ...who, purge: false } }))
      if (Either.isLeft(answer)) return failed("forget")(answer.left)
      const { deleted, already_deleted } = answer.right
      return deleted || already_deleted
        ? { ok: true, id, archived: true }
        : failed("forget")(new MemoryFailure({ code: "not_found", message: `no memory ${id} for this user` }))
    }
  }
}

export type ToolRunners = ReturnType<typeof toolRunners>
