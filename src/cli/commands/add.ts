import { Command, Options } from "@effect/cli"
import { Console, Effect, Option, Schema } from "effect"
import { AddMemoriesRequest, Message } from "../../api/MemoriesApi.js"
import { call, clientFor } from "../client.js"
import { request } from "../decode.js"
import { invalidInput } from "../errors.js"
import { parseJson, readText } from "../input.js"
import { optionalField, scopedOptions, scopeFields } from "../options.js"
import { printAs, printRecord } from "../output.js"
import { waitForJob } from "./jobs.js"

const options = {
  ...scopedOptions,
  messages: Options.text("message").pipe(Options.withAlias("m"), Options.repeated, Options.withDescription("A turn's text (repeatable)")),
  role: Options.choice("role", ["user", "assistant"]).pipe(Options.withDefault("user" as const), Options.withDescription("Role of the --message turns")),
  file: Options.text("file").pipe(Options.optional, Options.withDescription("A JSON array of {role, content}; - reads stdin")),
  sessionId: Options.text("session-id").pipe(Options.optional),
  sessionTime: Options.text("session-time").pipe(Options.optional),
  noInfer: Options.boolean("no-infer").pipe(Options.withDescription("Store the turns verbatim (no LLM)")),
  noWait: Options.boolean("no-wait").pipe(Options.withDescription("Print the job id instead of waiting for it"))
}

const MessagesFile = Schema.Array(Message)

/** Turns from a file (or stdin) first, then the --message flags. */
const gatherMessages = (file: Option.Option<string>, flags: ReadonlyArray<string>, role: "user" | "assistant") =>
  Effect.gen(function*() {
    const fromFile = Option.isSome(file)
      ? yield* readText(file.value).pipe(
        Effect.flatMap((text) => parseJson(text, file.value === "-" ? "stdin" : file.value)),
        Effect.flatMap((value) => request(MessagesFile, value))
      )
      : []
    const messages = [...fromFile, ...flags.map((content) => ({ role, content }))]
    if (messages.length === 0) return yield* Effect.fail(invalidInput("nothing to add: give --message or --file"))
    return messages
  })

export const addCommand = Command.make("add", options, (input) =>
  Effect.gen(function*() {
    const messages = yield* gatherMessages(input.file, input.messages, input.role)
    const payload = yield* request(AddMemoriesRequest, {
      user_id: input.user,
      ...scopeFields(input),
      messages,
      ...optionalField("session_id", input.sessionId),
      ...optionalField("session_time", input.sessionTime),
      infer: !input.noInfer,
      async_mode: true
    })
    const client = yield* clientFor(input)
    const accepted = yield* call(client.memories.add({ payload }))
    // A sync answer only comes back if the server ignored async_mode; print it as it is.
    if (!("job_id" in accepted)) return yield* printAs(input.json, accepted, (r) => printRecord({ ...r }))
    if (input.noWait) return yield* printAs(input.json, accepted, (a) => Console.log(`job ${a.job_id} accepted (session ${a.session_id})`))
    const job = yield* waitForJob(client, accepted.job_id)
    return yield* printAs(input.json, job.result ?? {}, (result) => printRecord({ session_id: accepted.session_id, ...result }))
  })).pipe(Command.withDescription("Add a conversation (async; waits on the job unless --no-wait)"))
