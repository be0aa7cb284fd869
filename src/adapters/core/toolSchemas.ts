import { z } from "zod"

/**
 * The memory tools' inputs as the model fills them. Optional values are nullable rather than
 * absent, the form OpenAI's strict tool schemas accept. No input names a user: the user is bound
 * by the application, never chosen by the model.
 */
export const rememberInput = z.object({
  content: z.string().min(1).max(4_000).describe("What to remember, as one self-contained statement")
})

export const recallInput = z.object({
  query: z.string().min(1).max(1_000).describe("What to look for, in plain words"),
  limit: z.number().int().min(1).max(20).nullable().describe("How many memories to return (default 5)")
})

export const contextInput = z.object({
  query: z.string().min(1).max(1_000).describe("What the answer is about, in plain words")
})

export const forgetInput = z.object({
  id: z.string().min(1).max(256).describe("The id of a memory, as recall returned it")
})

export type RememberInput = z.infer<typeof rememberInput>
export type RecallInput = z.infer<typeof recallInput>
export type ContextInput = z.infer<typeof contextInput>
export type ForgetInput = z.infer<typeof forgetInput>

export const TOOL_DESCRIPTIONS = {
  remember: "Store something about the user to remember in later conversations.",
  recall: "Search what is remembered about the user; returns the closest memories with their ids.",
  context: "Get a short block of what is remembered about the user that bears on a topic.",
  forget: "Archive a memory by its id, so that it is no longer recalled."
} as const

export type MemoryToolName = keyof typeof TOOL_DESCRIPTIONS
