import { Clock, Effect, Option, Schema } from "effect"
import { AnswerRequest, AnswerResponse } from "../../api/AnswerApi.js"
import { ServiceUnavailable } from "../../api/errors.js"
import { JobStarted } from "../../api/JobsApi.js"
import { LlmProvider } from "../../llm/LlmProvider.js"
import { PLAN_PROMPT, READ_PROMPT } from "../../llm/prompts.js"
import { type EvidenceLine, Plan, type PlanInput, type ReadInput, Reading } from "../../llm/tasks.js"
import { type CallUsage, summarizeCalls } from "../../llm/usage.js"
import type { EvidenceItem } from "../../retrieval/evidence.js"
import { localNow } from "../../domain/sessionTime.js"
import { Jobs } from "../jobs/Jobs.js"
import { Retrieval } from "./Retrieval.js"
import { validateUserId } from "../../domain/userId.js"
import { jobHandler } from "../jobs/jobHandler.js"
import { span } from "../../util/span.js"

/** An answer job keeps the request as it was sent, defaults applied. */
const AnswerJobPayload = Schema.Struct({ request: AnswerRequest })

/** Hits each planner search adds to the evidence, and the most evidence the reader is shown. */
const HITS_PER_SEARCH = 8
const MOST_EVIDENCE = 40
/** Searches in a row that found nothing new before the planner is stopped. */
const STALL_LIMIT = 2

const line = (item: EvidenceItem): EvidenceLine => ({
  id: item.evidence_id,
  // A fact reads best as its statement; a raw turn as what was said.
  text: typeof item.predicate_raw === "string" && item.fact_id !== null ? item.predicate_raw : item.support_text,
  date: item.occurred_start ?? item.session_time ?? ""
})

const noProviderMessage = (sync: boolean) =>
  sync
    ? "/v1/answer needs an LLM provider — set SERVICE_LLM_API_KEY (and SERVICE_LLM_PROVIDER / SERVICE_LLM_MODEL / SERVICE_LLM_BASE_URL as needed). Retrieval routes (/v1/search, /v1/context) keep working without one; only this route calls an LLM."
    : "/v1/answer needs an LLM provider — set SERVICE_LLM_API_KEY"

/**
 * Answers questions from a user's memory: a planner decides search by search what to look
 * for, then a reader answers from the evidence gathered and nothing else, citing it.
 */
export class Answerer extends Effect.Service<Answerer>()("Memory/Answerer", {
  effect: Effect.gen(function*() {
    const llm = yield* LlmProvider
    const retrieval = yield* Retrieval
    const jobs = yield* Jobs

    const requireLlm = (sync: boolean) =>
      Option.match(llm.active, {
        onNone: () => Effect.fail(new ServiceUnavailable({ message: noProviderMessage(sync), details: {} })),
        onSome: Effect.succeed
      })

    const answer = (request: AnswerRequest) =>
      Effect.gen(function*() {
        const active = yield* requireLlm(true)
        const userId = yield* validateUserId(request.user_id)
        const currentDate = request.current_date ?? localNow(new Date(yield* Clock.currentTimeMillis)).slice(0, 10)
        const calls: Array<CallUsage> = []
        const evidence = new Map<string, EvidenceLine>()
        const searches: Array<{ query: string; found: number }> = []
        let termination: AnswerResponse["termination"] = "max_steps_reader_fallback"
        let steps = 0
        let stalled = 0
        while (steps < request.max_steps) {
          steps += 1
          const plan = yield* active.generate({
            operation: "answer",
            phase: "plan",
            system: PLAN_PROMPT,
            input: {
              question: request.question,
              current_date: currentDate,
              step: steps,
              max_steps: request.max_steps,
              searches,
              evidence: [...evidence.values()]
            } satisfies PlanInput,
            schemaName: "answer_plan",
            schema: Plan,
            maxTokens: request.planner_max_tokens,
            temperature: request.temperature
          })
          calls.push(...plan.calls)
          if (plan.value.action === "answer") {
            termination = "planner_final"
            break
          }
          const query = plan.value.query.trim() === "" ? request.question : plan.value.query.trim()
          const found = yield* retrieval.search({ ...request, user_id: userId, query, top_k: HITS_PER_SEARCH })
          const fresh = found.items.filter((item) => !evidence.has(item.evidence_id))
          for (const item of fresh) if (evidence.size < MOST_EVIDENCE) evidence.set(item.evidence_id, line(item))
          searches.push({ query, found: fresh.length })
          stalled = fresh.length === 0 ? stalled + 1 : 0
          if (stalled >= STALL_LIMIT) {
            termination = "stall_stop_reader_fallback"
            break
          }
        }
        const lines = [...evidence.values()]
        const reading = yield* active.generate({
          operation: "answer",
          phase: "read",
          system: READ_PROMPT,
          input: { question: request.question, current_date: currentDate, evidence: lines } satisfies ReadInput,
          schemaName: "answer_reading",
          schema: Reading,
          maxTokens: request.reader_max_tokens,
          temperature: request.temperature
        })
        calls.push(...reading.calls)
        // Only what the reader was shown can be cited.
        const citations = [...new Set(reading.value.citations.filter((id) => evidence.has(id)))]
        return new AnswerResponse({
          answer: reading.value.answer,
          citations,
          termination,
          planner_steps: steps,
          insufficient: reading.value.insufficient,
          missing_information: reading.value.missing_information,
          usage: summarizeCalls(calls)
        })
      }).pipe(span("Answerer.answer"))

    return {
      answer,

      /** Checks there is an LLM, then persists an answer job (the store is opened by the job). */
      accept: (request: AnswerRequest) =>
        Effect.gen(function*() {
          yield* requireLlm(false)
          const jobId = yield* jobs.submit("answer", request.user_id, { request: Schema.encodeSync(AnswerRequest)(request) })
          return new JobStarted({ job_id: jobId, status: "pending" })
        }),

      runJob: jobHandler(AnswerJobPayload, AnswerResponse, ({ request }) => answer(request))
    } as const
  })
}) {}
