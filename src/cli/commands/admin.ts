import { Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { withClient } from "../client.js"
import { dataOptions } from "../options.js"
import { printAs, printRecord, printTable } from "../output.js"

export const statsCommand = Command.make("stats", dataOptions, ({ json, ...connection }) =>
  withClient(connection, (client) => client.admin.stats()).pipe(
    Effect.flatMap((stats) => printAs(json, stats, (s) => printRecord({ ...s })))
  )).pipe(Command.withDescription("Users, store sizes, jobs and memories by status"))

export const usageCommand = Command.make("usage", dataOptions, ({ json, ...connection }) =>
  withClient(connection, (client) => client.observability.usage()).pipe(
    Effect.flatMap((usage) =>
      printAs(json, usage, (u) => {
        const rows = Object.entries(u.by_operation).map(([operation, s]) => [operation, s.calls, s.prompt_tokens, s.completion_tokens, s.total_tokens])
        return rows.length === 0
          ? Console.log("no LLM calls since the service started")
          : printTable(["OPERATION", "CALLS", "PROMPT", "COMPLETION", "TOTAL"], rows)
      }))
  )).pipe(Command.withDescription("LLM calls and tokens since the service started"))
