import { Args, Command, Options } from "@effect/cli"
import { Config, Console, Effect } from "effect"
import * as NodePath from "node:path"
import { DEFAULT_HUB_URL } from "../../config/AppConfig.js"
import { pullModel, type PullProgress } from "../../llm/local/modelPull.js"
import { writeTinyModel } from "../../llm/local/writeTinyModel.js"
import { CliFailure } from "../errors.js"
import { note } from "../output.js"
import { dataRootOption, dataRootOrSetting, megabytes } from "./backupShared.js"

const BAR_WIDTH = 24

const bar = ({ file, received, total }: PullProgress) => {
  const filled = total === undefined || total === 0 ? 0 : Math.min(BAR_WIDTH, Math.round((BAR_WIDTH * received) / total))
  const size = total === undefined ? megabytes(received) : `${megabytes(received)} / ${megabytes(total)}`
  return `[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}] ${file}  ${size}`
}

/** A bar redrawn in place on a terminal; one line per finished file into a pipe or a log. */
const showProgress = (terminal: boolean) => (progress: PullProgress) => {
  if (terminal) process.stderr.write(`\r\x1b[K${bar(progress)}${progress.done ? "\n" : ""}`)
  else if (progress.done) process.stderr.write(`${progress.file}  ${megabytes(progress.received)}  verified\n`)
}

const pullCommand = Command.make(
  "pull",
  {
    id: Args.text({ name: "model_id" }).pipe(Args.withDescription("A hub id, e.g. sentence-transformers/all-MiniLM-L6-v2")),
    hubUrl: Options.text("hub-url").pipe(
      Options.withFallbackConfig(Config.string("SERVICE_EMBED_HUB_URL").pipe(Config.withDefault(DEFAULT_HUB_URL))),
      Options.withDescription(`The model hub (env SERVICE_EMBED_HUB_URL, default ${DEFAULT_HUB_URL})`)
    ),
    dataRoot: dataRootOption("The data root whose models/ directory receives the model (default SERVICE_DATA_ROOT)")
  },
  (input) =>
    Effect.gen(function*() {
      const dataRoot = yield* dataRootOrSetting(input.dataRoot)
      const pulled = yield* pullModel({
        hubUrl: input.hubUrl.replace(/\/+$/, ""),
        dataRoot,
        id: input.id,
        onProgress: showProgress(process.stderr.isTTY === true)
      }).pipe(Effect.mapError((failure) => new CliFailure({ code: failure.code, message: failure.message })))
      yield* Console.log(pulled.directory)
      yield* note(`pulled ${input.id}; the service uses it with SERVICE_EMBED_PROVIDER=local SERVICE_EMBED_MODEL=${input.id} (or with no embedding provider configured), after a restart`)
    })
).pipe(Command.withDescription("Download an embedding model (ONNX export, tokenizer, configuration) into <data_root>/models/, resumable and checked"))

const tinyCommand = Command.make(
  "tiny",
  { directory: Args.directory({ name: "directory", exists: "either" }).pipe(Args.withDescription("Where to write model.onnx, tokenizer.json and config.json")) },
  ({ directory }) =>
    Effect.gen(function*() {
      const files = yield* Effect.try({
        try: () => writeTinyModel(directory),
        catch: (error) => new CliFailure({ code: "write_failed", message: `cannot write into ${directory}: ${error instanceof Error ? error.message : String(error)}` })
      })
      yield* Console.log(files.join("\n"))
      yield* note(`a tiny model with random weights, for smoke tests only (its vectors mean nothing): SERVICE_EMBED_PROVIDER=local SERVICE_EMBED_MODEL=${NodePath.resolve(directory)}`)
    })
).pipe(Command.withDescription("Write a tiny BERT-shaped model with random weights, to smoke-test the local embedding provider"))

export const modelsCommand = Command.make("models").pipe(
  Command.withDescription("Local embedding models"),
  Command.withSubcommands([pullCommand, tinyCommand])
)
