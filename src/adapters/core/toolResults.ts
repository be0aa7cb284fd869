/** A tool call that did not succeed, as the model reads it: a stable code and a short message. */
export interface ToolError {
  readonly ok: false
  readonly error: { readonly code: string; readonly message: string }
}

export interface RecalledMemory {
  readonly id: string
  readonly text: string
  readonly score: number | null
  readonly session_id: string | null
  readonly occurred_at: string | null
}

export type RememberResult = { readonly ok: true; readonly session_id: string; readonly facts_extracted: number } | ToolError
export type RecallResult = { readonly ok: true; readonly memories: ReadonlyArray<RecalledMemory> } | ToolError
export type ContextResult = { readonly ok: true; readonly context: string; readonly citations: ReadonlyArray<string> } | ToolError
export type ForgetResult = { readonly ok: true; readonly id: string; readonly archived: true } | ToolError

export type MemoryToolResult = RememberResult | RecallResult | ContextResult | ForgetResult
