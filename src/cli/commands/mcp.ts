import { Command } from "@effect/cli"
import { Effect } from "effect"
import { commandModule } from "../lazy.js"

export const mcpCommand = Command.make("mcp", {}, () =>
  Effect.flatMap(commandModule("MCP server", () => import("../../mcp/stdio.js")), ({ runMcpStdio }) => runMcpStdio)).pipe(
  Command.withDescription("The MCP server over stdio")
)
