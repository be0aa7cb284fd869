/**
 * Memory for LangChain.js:
 *
 *   const client = memoryClient({ baseUrl: "http://127.0.0.1:8000", apiKey })
 *   const retriever = new MemoryRetriever({ client, userId: "alice" })
 *   const history = new MemoryChatMessageHistory({ client, userId: "alice", sessionId: "support-42" })
 *   const tools = memoryTools({ client, userId: "alice" })
 */
export { memoryClient, MemoryClient, type MemoryClientOptions, type MemoryStats } from "../core/client.js"
export type { MemoryScope } from "../core/scope.js"
export type * from "../core/toolResults.js"
export { type MemoryChatHistoryOptions, MemoryChatMessageHistory } from "./history.js"
export { type MemoryDocumentMetadata, MemoryRetriever, type MemoryRetrieverOptions } from "./retriever.js"
export { type LangChainToolsOptions, memoryTools } from "./tools.js"
