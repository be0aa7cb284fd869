import { Command } from "@effect/cli"
import { Effect } from "effect"
import { commandModule } from "../lazy.js"

/**
 * The server entry itself, imported: it launches ServerLive under its own runMain (signals,
 * graceful shutdown, the startup-failure line). This command returns at once with success, and
 * the CLI's runtime then leaves the process to the server.
 */
export const serveCommand = Command.make("serve", {}, () =>
  commandModule("server", () => import("../../main.js")).pipe(Effect.asVoid)).pipe(
    Command.withDescription("Run the service in this process (configured by SERVICE_* variables)")
  )
