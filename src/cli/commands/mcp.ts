import { Command } from "@effect/cli"
import { runMcpStdio } from "../../mcp/stdio.js"

export const mcpCommand = Command.make("mcp", {}, () => runMcpStdio).pipe(
  Command.withDescription("The MCP server over stdio")
)
