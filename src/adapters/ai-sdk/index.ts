/**
 * Memory for the Vercel AI SDK:
 *
 *   const client = memoryClient({ baseUrl: "http://127.0.0.1:8000", apiKey })
 *   const model = wrapLanguageModel({ model: openai("gpt-4o-mini"), middleware: memoryMiddleware({ client, userId: "alice" }) })
 *   await generateText({ model, tools: memoryTools({ client, userId: "alice" }), prompt: "…" })
 */
export { memoryClient, MemoryClient, type MemoryClientOptions, type MemoryStats } from "../core/client.js"
export type { MemoryScope } from "../core/scope.js"
export type * from "../core/toolResults.js"
export type { MemoryCallOptions } from "./callOptions.js"
export { CONTEXT_HEADING } from "../core/contextBlock.js"
export { memoryMiddleware, type MemoryMiddlewareOptions } from "./middleware.js"
export { type AiSdkToolsOptions, memoryTools } from "./tools.js"
