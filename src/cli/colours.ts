import { Console, type Effect } from "effect"

// The escape sequences that colour text (ANSI SGR), as the help and usage messages are rendered.
const COLOUR_CODES = /\u001b\[[0-9;]*m/g

const withoutColours = (args: ReadonlyArray<unknown>) => args.map((arg) => typeof arg === "string" ? arg.replace(COLOUR_CODES, "") : arg)

/** Whether a stream is shown as colours: a terminal, unless NO_COLOR asks for none. */
const showsColours = (stream: NodeJS.WriteStream) => stream.isTTY === true && (process.env.NO_COLOR ?? "") === ""

/** Runs the CLI with colours written only to terminals: a pipe or a file gets plain text. */
export const coloursOnTerminalsOnly = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Console.consoleWith((current) =>
    Console.withConsole(effect, {
      ...current,
      log: (...args) => current.log(...(showsColours(process.stdout) ? args : withoutColours(args))),
      error: (...args) => current.error(...(showsColours(process.stderr) ? args : withoutColours(args)))
    }))
