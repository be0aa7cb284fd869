import { ValidationError } from "@effect/cli"
import { NodeContext, NodeHttpClient, NodeRuntime } from "@effect/platform-node"
import { Cause, Effect, Layer } from "effect"
import { runnerFor } from "./commands/root.js"
import { COMMANDS } from "./commands/table.js"
import { coloursOnTerminalsOnly } from "./colours.js"
import { CliFailure } from "./errors.js"

const EXIT_FAILURE = 1
/** Bad usage: @effect/cli has already printed what was wrong. */
const EXIT_USAGE = 2

/**
 * A command named first loads only its own module (and the client for what it calls); `--help`,
 * options before a command and unknown commands load every command.
 */
const named = COMMANDS.find((entry) => entry.name === process.argv[2])
const loadRunner = Effect.promise(() => named === undefined ? import("./commands/index.js").then((m) => runnerFor(m.rootCommand)) : named.load())

const fail = (line: string | undefined, code: number) =>
  Effect.sync(() => {
    if (line !== undefined) process.stderr.write(`${line}\n`)
    process.exitCode = code
  })

loadRunner.pipe(
  Effect.flatMap((run) => run(process.argv)),
  coloursOnTerminalsOnly,
  Effect.catchIf(ValidationError.isValidationError, () => fail(undefined, EXIT_USAGE)),
  Effect.catchTag("CliFailure", (failure: CliFailure) => fail(`${failure.code}: ${failure.message}`, EXIT_FAILURE)),
  // A defect is a bug here, not the service's answer: still one line, never a stack on stdout.
  Effect.catchAllCause((cause) => Cause.isInterruptedOnly(cause) ? Effect.void : fail(`internal_error: ${Cause.pretty(cause)}`, EXIT_FAILURE)),
  // node:http rather than fetch for the derived client: a process that calls fetch once pays ~40 ms to load it.
  Effect.provide(Layer.merge(NodeContext.layer, NodeHttpClient.layer)),
  NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
)
