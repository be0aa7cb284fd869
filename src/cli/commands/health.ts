import { Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { HealthOnlyApi } from "../../api/HealthOnlyApi.js"
import { deriveClientOf } from "../../client/derive.js"
import { call } from "../call.js"
import { clientOptions } from "../connection.js"
import { dataOptions } from "../options.js"
import { printAs } from "../output.js"

export const healthCommand = Command.make("health", dataOptions, ({ json, ...connection }) =>
  // A client for the health route alone: the command builds none of the other routes' schemas.
  deriveClientOf(HealthOnlyApi, clientOptions(connection)).pipe(
    Effect.flatMap((client) => call(client.health.health())),
    Effect.flatMap((health) =>
      printAs(json, health, (h) =>
        Console.log(`${h.status}  version ${h.version}  schema ${h.schema_version}  auth ${h.auth}${h.embeddings === undefined ? "" : `  embeddings ${h.embeddings}`}`))
    )
  )).pipe(Command.withDescription("Is the service up (needs no key)"))
