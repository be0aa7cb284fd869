import { type CliApp, Command, type ValidationError } from "@effect/cli"
import type { FileSystem, HttpClient } from "@effect/platform"
import type { Effect } from "effect"
import { SERVICE_VERSION } from "../../version.js"
import type { CliFailure } from "../errors.js"

/** What every command may use: the command line provides both (src/cli/run.ts). */
export type CommandContext = FileSystem.FileSystem | HttpClient.HttpClient

/** The command line parsed and run: what `Command.run` makes of a root command. */
export type Runner = (args: ReadonlyArray<string>) => Effect.Effect<void, CliFailure | ValidationError.ValidationError, CommandContext | CliApp.CliApp.Environment>

/** The root command, before its subcommands. */
export const rootOnly = Command.make("memory-service").pipe(
  Command.withDescription("Command line for the memory service: every route of its HTTP API, through the typed client")
)

export const runnerFor: <Name extends string, R extends CommandContext, A>(root: Command.Command<Name, R, CliFailure, A>) => Runner =
  Command.run({ name: "memory-service", version: SERVICE_VERSION })

/** The root command with this one subcommand, ready to run: what a process running that command needs. */
export const runnerOf = <Name extends string, R extends CommandContext, A>(subcommand: Command.Command<Name, R, CliFailure, A>): Runner =>
  runnerFor(rootOnly.pipe(Command.withSubcommands([subcommand])))
