import { Args, Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { AnswerRequest } from "../../api/AnswerApi.js"
import { ContextRequest, SearchRequest } from "../../api/RetrievalApi.js"
import { withClient } from "../client.js"
import { request } from "../decode.js"
import { optionalField, optionalInteger, userOptions } from "../options.js"
import { CONTENT_WIDTH, note, printAs, printTable, truncate } from "../output.js"

const query = Args.text({ name: "query" })

/** Degraded legs go to stderr: the answer is still usable, but the reader should know. */
const noteDegraded = (degraded: ReadonlyArray<{ readonly code: string; readonly message: string }>) =>
  Effect.forEach(degraded, (d) => note(`degraded: ${d.code}: ${d.message}`), { discard: true })

export const searchCommand = Command.make(
  "search",
  { ...userOptions, query, topK: optionalInteger("top-k", "Hits to return (1-100, default 10)") },
  ({ json, query, topK, user, ...connection }) =>
    Effect.gen(function*() {
      const payload = yield* request(SearchRequest, { user_id: user, query, ...optionalField("top_k", topK) })
      const result = yield* withClient(connection, (client) => client.retrieval.search({ payload }))
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
  { ...userOptions, query, budget: optionalInteger("budget", "Token budget (100-32000, default 2000)") },
  ({ budget, json, query, user, ...connection }) =>
    Effect.gen(function*() {
      const payload = yield* request(ContextRequest, { user_id: user, query, ...optionalField("token_budget", budget) })
      const result = yield* withClient(connection, (client) => client.retrieval.context({ payload }))
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
  { ...userOptions, question: Args.text({ name: "question" }) },
  ({ json, question, user, ...connection }) =>
    Effect.gen(function*() {
      const payload = yield* request(AnswerRequest, { user_id: user, question })
      const result = yield* withClient(connection, (client) => client.answer.answer({ payload }))
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
