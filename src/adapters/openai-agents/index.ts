/**
 * Memory for the OpenAI Agents SDK:
 *
 *   const client = memoryClient({ baseUrl: "http://127.0.0.1:8000", apiKey })
 *   const agent = new Agent<MemoryRunContext>({ name: "Assistant", instructions: memoryInstructions({ client, instructions: "…" }), tools: memoryTools({ client }) })
 *   await run(agent, question, { context: { userId: "alice", query: question } })
 */
export { memoryClient, MemoryClient, type MemoryClientOptions, type MemoryStats } from "../core/client.js"
export { CONTEXT_HEADING } from "../core/contextBlock.js"
export type { MemoryScope } from "../core/scope.js"
export type * from "../core/toolResults.js"
export { memoryInstructions, type MemoryInstructionsOptions } from "./instructions.js"
export type { MemoryRunContext } from "./runContext.js"
export { type AgentsToolsOptions, memoryTools } from "./tools.js"
