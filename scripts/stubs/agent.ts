/**
 * The "agent" of the loopback OpenAI stub: what a chat model with tools answers when a framework
 * runs its tool loop against the stub (a request with tools or plain messages, no structured
 * output). It answers with tool calls or a final text by a few deterministic rules, so that the
 * frameworks' real loops run end to end: call a tool, read its result, answer.
 *
 * No runtime dependencies; it never throws.
 */

/** One item of the conversation the model is shown, whatever the wire format. */
export type AgentItem =
  | { readonly kind: "system"; readonly text: string }
  | { readonly kind: "user"; readonly text: string }
  | { readonly kind: "assistant"; readonly text: string }
  | { readonly kind: "call"; readonly id: string; readonly name: string; readonly arguments: string }
  | { readonly kind: "result"; readonly id: string; readonly output: string }

export interface AgentTool {
  readonly name: string
  /** The tool's JSON schema for its arguments. */
  readonly parameters: Record<string, unknown>
}

export interface StubAgentRequest {
  readonly items: ReadonlyArray<AgentItem>
  readonly tools: ReadonlyArray<AgentTool>
}

export interface StubToolCall {
  readonly name: string
  readonly arguments: Record<string, unknown>
}

/** The model's turn: a final text, or tool calls to run before it answers. */
export type StubAgentTurn = { readonly text: string } | { readonly calls: ReadonlyArray<StubToolCall> }

const REMEMBER = /^(?:please\s+)?remember(?:\s+that)?[:,]?\s+(.+)$/is
const CONTENT_WORD = /[a-z0-9]{4,}/g
const RESULT_CHARS = 600

const contentWords = (text: string) => new Set(text.toLowerCase().match(CONTENT_WORD) ?? [])

/** The text of what the user said last. */
export const lastUserText = (items: ReadonlyArray<AgentItem>) => {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!
    if (item.kind === "user") return item.text
  }
  return ""
}

/** Tool results that came after the last user message. */
const resultsSinceUser = (items: ReadonlyArray<AgentItem>) => {
  const results: Array<string> = []
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!
    if (item.kind === "user") break
    if (item.kind === "result") results.unshift(item.output.slice(0, RESULT_CHARS))
  }
  return results
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : {}

const allowsNull = (schema: Record<string, unknown>) =>
  schema.type === "null" || (Array.isArray(schema.type) && schema.type.includes("null")) ||
  [schema.anyOf, schema.oneOf].some((options) => Array.isArray(options) && options.some((option) => record(option).type === "null"))

/**
 * Arguments for a tool, read from its schema: the text goes into its first string property,
 * every other required property is null (the strict form of "left out").
 */
export const argumentsFor = (tool: AgentTool, text: string): Record<string, unknown> => {
  const properties = record(tool.parameters.properties)
  const required = Array.isArray(tool.parameters.required) ? tool.parameters.required : []
  const textProperty = Object.keys(properties).find((name) => {
    const type = record(properties[name]).type
    return type === "string" || (Array.isArray(type) && type.includes("string"))
  })
  const args: Record<string, unknown> = {}
  for (const name of Object.keys(properties)) {
    if (name === textProperty) args[name] = text
    else if (required.includes(name) && allowsNull(record(properties[name]))) args[name] = null
  }
  return args
}

/** The line of the system text that shares the most content words with the question, if any does. */
const bestSystemLine = (items: ReadonlyArray<AgentItem>, question: string) => {
  const asked = contentWords(question)
  let best: { line: string; shared: number } | undefined
  for (const item of items) {
    if (item.kind !== "system") continue
    for (const line of item.text.split("\n")) {
      const shared = [...contentWords(line)].filter((word) => asked.has(word)).length
      if (shared > 0 && (best === undefined || shared > best.shared)) best = { line: line.trim(), shared }
    }
  }
  return best?.line
}

/**
 * The default agent: answers from tool results when it has them; asks `remember` to keep what
 * the user asks it to remember and `recall` for a question, when those tools are offered;
 * otherwise answers from the system text's line closest to the user's words, or acknowledges.
 */
export const agentRespond = (request: StubAgentRequest): StubAgentTurn => {
  const results = resultsSinceUser(request.items)
  if (results.length > 0) return { text: `From memory: ${results.join(" | ")}` }
  const said = lastUserText(request.items).trim()
  const tool = (name: string) => request.tools.find((candidate) => candidate.name === name)
  const remember = tool("remember")
  const toRemember = REMEMBER.exec(said)
  if (remember !== undefined && toRemember !== null) return { calls: [{ name: remember.name, arguments: argumentsFor(remember, toRemember[1]!.trim()) }] }
  const recall = tool("recall")
  if (recall !== undefined && said.endsWith("?")) return { calls: [{ name: recall.name, arguments: argumentsFor(recall, said) }] }
  const line = bestSystemLine(request.items, said)
  return { text: line === undefined ? `Noted: ${said}` : `From context: ${line}` }
}
