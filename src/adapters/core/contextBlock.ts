/** How the context block is introduced to the model, wherever an adapter puts it. */
export const CONTEXT_HEADING = "What you remember about this user from earlier conversations (may be incomplete):"

export const contextBlock = (block: string) => `${CONTEXT_HEADING}\n${block}`
