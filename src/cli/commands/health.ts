import { Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { withClient } from "../client.js"
import { dataOptions } from "../options.js"
import { printAs } from "../output.js"

export const healthCommand = Command.make("health", dataOptions, ({ json, ...connection }) =>
  withClient(connection, (client) => client.health.health()).pipe(
    Effect.flatMap((health) =>
      printAs(json, health, (h) =>
        Console.log(`${h.status}  version ${h.version}  schema ${h.schema_version}  auth ${h.auth}${h.embeddings === undefined ? "" : `  embeddings ${h.embeddings}`}`))
    )
  )).pipe(Command.withDescription("Is the service up (needs no key)"))
