import { Args, Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { AnswerRequest } from "../../api/AnswerApi.js"
import { ContextRequest, SearchRequest } from "../../api/RetrievalApi.js"
import { withClient } from "../client.js"
import { request } from "../decode.js"
import { optionalField, optionalInteger, scopedOptions, scopeFields } from "../options.js"
import { CONTENT_WIDTH, note, printAs, printTable, truncate } from "../output.js"

const query = Args.text({ name: "query" })

/** Degraded legs go to stderr: the answer is still usable, but the reader should know. */
const noteDegraded = (degraded: ReadonlyArray<{ readonly code: string; readonly message: string }>) =>
  Effect.forEach(degraded, (d) => note(`degraded: ${d.code}: ${d.message}`), { discard: true })

export const searchCommand = Command.make(
  "search",
  { ...scopedOptions, query, topK: optionalInteger("top-k", "Hits to return (1-100, default 10)") },
  ({ agentId, json, projectId, query, runId, topK, user, ...connection }) =>
    Effect.gen(function*() {
      const payload = yield* request(SearchRequest, { user_id: user, query, ...optionalField("top_k", topK), ...scopeFields({ agentId, runId, projectId }) })
      const result = yield* withClient(connection, "retrieval", (client) => client.search({ payload }))
      yield* printAs(json, result, (r) =>
        Effect.zipRight(
          printTable(
            ["SCORE", "ID", "SESSION", "CONTENT"],
            r.hits.map((h) => [h.score === null ? null : h.score.toFixed(3), h.id, h.session_id, truncate(h.content, CONTENT_WIDTH)])
          ),
          noteDegraded(r.degraded)
        ))
    })
).pipe(Command.withDescription("Ranked recall (no LLM call)"))

export const contextCommand = Command.make(
  "context",
  { ...scopedOptions, query, budget: optionalInteger("budget", "Token budget (100-32000, default 2000)") },
  ({ agentId, budget, json, projectId, query, runId, user, ...connection }) =>
    Effect.gen(function*() {
      const payload = yield* request(ContextRequest, {
        user_id: user,
        query,
        ...optionalField("token_budget", budget),
        ...scopeFields({ agentId, runId, projectId })
      })
      const result = yield* withClient(connection, "retrieval", (client) => client.context({ payload }))
      // The text alone on stdout, ready to paste into a prompt; the rest on stderr.
      yield* printAs(json, result, (r) =>
        Effect.zipRight(
          Console.log(r.text),
          Effect.zipRight(note(`citations: ${r.citations.length === 0 ? "(none)" : r.citations.join(" ")}`), noteDegraded(r.degraded))
        ))
    })
).pipe(Command.withDescription("A prompt-ready block of cited evidence"))

export const answerCommand = Command.make(
  "answer",
  { ...scopedOptions, question: Args.text({ name: "question" }) },
  ({ agentId, json, projectId, question, runId, user, ...connection }) =>
    Effect.gen(function*() {
      const payload = yield* request(AnswerRequest, { user_id: user, question, ...scopeFields({ agentId, runId, projectId }) })
      const result = yield* withClient(connection, "answer", (client) => client.answer({ payload }))
      if ("job_id" in result) return yield* printAs(json, result, (r) => Console.log(`job ${r.job_id} accepted`))
      yield* printAs(json, result, (r) =>
        Effect.zipRight(
          Console.log(r.answer),
          Effect.zipRight(
            note(`citations: ${r.citations.length === 0 ? "(none)" : r.citations.join(" ")}  (${r.termination}, ${r.planner_steps} steps)`),
            r.insufficient ? note(`insufficient: ${r.missing_information}`) : Effect.void
          )
        ))
    })
).pipe(Command.withDescription("Answer a question from memory (needs an LLM)"))
