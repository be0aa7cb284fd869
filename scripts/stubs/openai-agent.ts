/**
 * OpenAI's two wire formats for a tool-calling model, as the stub reads and answers them: Chat
 * Completions (messages, `tools[].function`, `tool_calls`, `tool` messages) and the Responses API
 * (`instructions`, `input` items, `function_call` / `function_call_output`). Both are turned into
 * the agent's neutral conversation (./agent.ts) and its turn back into the format asked for.
 */
import type { AgentItem, AgentTool, StubAgentRequest, StubAgentTurn } from "./agent.js"

type Json = Record<string, unknown>

const record = (value: unknown): Json => typeof value === "object" && value !== null && !Array.isArray(value) ? value as Json : {}
const list = (value: unknown): ReadonlyArray<unknown> => Array.isArray(value) ? value : []
const text = (value: unknown): string => typeof value === "string" ? value : ""
const words = (value: string) => value.match(/\S+/g)?.length ?? 0
/** A content that is a string or a list of parts with text (text, input_text, output_text). */
const contentText = (content: unknown) => typeof content === "string" ? content : list(content).map((part) => text(record(part).text)).join("")

export interface AgentCall {
  readonly model: string
  readonly request: StubAgentRequest
  readonly api: "chat" | "responses"
}

const messageItem = (role: string, content: string): AgentItem | undefined =>
  role === "system" || role === "developer"
    ? { kind: "system", text: content }
    : role === "user"
    ? { kind: "user", text: content }
    : role === "assistant"
    ? { kind: "assistant", text: content }
    : undefined

/** A Chat Completions request that asks for no structured output is an agent's call. */
export const readChatCompletions = (body: Json): AgentCall | undefined => {
  if (body.response_format !== undefined) return undefined
  const items: Array<AgentItem> = []
  for (const message of list(body.messages).map(record)) {
    const role = text(message.role)
    if (role === "tool") {
      items.push({ kind: "result", id: text(message.tool_call_id), output: contentText(message.content) })
      continue
    }
    const said = messageItem(role, contentText(message.content))
    if (said !== undefined && (said.kind !== "assistant" || said.text !== "")) items.push(said)
    for (const call of list(message.tool_calls).map(record)) {
      const fn = record(call.function)
      items.push({ kind: "call", id: text(call.id), name: text(fn.name), arguments: text(fn.arguments) })
    }
  }
  const tools: Array<AgentTool> = list(body.tools).map((tool) => record(record(tool).function))
    .map((fn) => ({ name: text(fn.name), parameters: record(fn.parameters) }))
  return { model: text(body.model), request: { items, tools }, api: "chat" }
}

/** Every Responses API request is an agent's call (the service itself asks through Chat Completions). */
export const readResponses = (body: Json): AgentCall => {
  const items: Array<AgentItem> = []
  if (text(body.instructions) !== "") items.push({ kind: "system", text: text(body.instructions) })
  const input = typeof body.input === "string" ? [{ role: "user", content: body.input }] : list(body.input)
  for (const item of input.map(record)) {
    const type = text(item.type)
    if (type === "function_call") {
      items.push({ kind: "call", id: text(item.call_id), name: text(item.name), arguments: text(item.arguments) })
    } else if (type === "function_call_output") {
      items.push({ kind: "result", id: text(item.call_id), output: contentText(item.output) })
    } else if (type === "" || type === "message") {
      const said = messageItem(text(item.role), contentText(item.content))
      if (said !== undefined) items.push(said)
    }
  }
  const tools: Array<AgentTool> = list(body.tools).map(record).filter((tool) => tool.type === "function")
    .map((tool) => ({ name: text(tool.name), parameters: record(tool.parameters) }))
  return { model: text(body.model), request: { items, tools }, api: "responses" }
}

const itemText = (item: AgentItem) =>
  item.kind === "call" ? `${item.name} ${item.arguments}` : item.kind === "result" ? item.output : item.text

/** Deterministic usage: the words shown to the model and the words of its turn. */
const usageOf = (request: StubAgentRequest, turn: StubAgentTurn) => {
  const prompt = request.items.reduce((sum, item) => sum + words(itemText(item)), 0)
  const completion = "text" in turn ? words(turn.text) : turn.calls.reduce((sum, call) => sum + words(JSON.stringify(call.arguments)), 0)
  return { prompt, completion }
}

let sequence = 0
const nextId = (prefix: string) => `${prefix}_stub${++sequence}`

const chatCompletionsReply = (call: AgentCall, turn: StubAgentTurn) => {
  const { prompt, completion } = usageOf(call.request, turn)
  const message = "text" in turn
    ? { role: "assistant", content: turn.text, refusal: null }
    : {
      role: "assistant",
      content: null,
      refusal: null,
      tool_calls: turn.calls.map((tool) => ({ id: nextId("call"), type: "function", function: { name: tool.name, arguments: JSON.stringify(tool.arguments) } }))
    }
  return {
    id: nextId("chatcmpl"),
    object: "chat.completion",
    created: 1767225600,
    model: `${call.model}-stub-2026`,
    choices: [{ index: 0, finish_reason: "text" in turn ? "stop" : "tool_calls", message }],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, prompt_tokens_details: { cached_tokens: 0 } }
  }
}

const responsesReply = (call: AgentCall, turn: StubAgentTurn) => {
  const { prompt, completion } = usageOf(call.request, turn)
  const output = "text" in turn
    ? [{
      type: "message",
      id: nextId("msg"),
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: turn.text, annotations: [] }]
    }]
    : turn.calls.map((tool) => ({
      type: "function_call",
      id: nextId("fc"),
      call_id: nextId("call"),
      name: tool.name,
      arguments: JSON.stringify(tool.arguments),
      status: "completed"
    }))
  return {
    id: nextId("resp"),
    object: "response",
    created_at: 1767225600,
    status: "completed",
    error: null,
    incomplete_details: null,
    model: `${call.model}-stub-2026`,
    output,
    parallel_tool_calls: true,
    usage: {
      input_tokens: prompt,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: completion,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: prompt + completion
    }
  }
}

export const agentReply = (call: AgentCall, turn: StubAgentTurn) =>
  call.api === "chat" ? chatCompletionsReply(call, turn) : responsesReply(call, turn)

/**
 * The same Chat Completions turn as server-sent events, as OpenAI streams it: a role chunk, the
 * text a few words a chunk (or the tool calls), the finish reason, usage when asked for, [DONE].
 */
export const chatCompletionsStream = (call: AgentCall, turn: StubAgentTurn, includeUsage: boolean): string => {
  const id = nextId("chatcmpl")
  const chunk = (delta: Json, finish: string | null = null) => ({
    id,
    object: "chat.completion.chunk",
    created: 1767225600,
    model: `${call.model}-stub-2026`,
    choices: [{ index: 0, delta, finish_reason: finish }]
  })
  const events: Array<unknown> = [chunk({ role: "assistant", content: "" })]
  if ("text" in turn) {
    for (const piece of turn.text.match(/\S+\s*/g) ?? []) events.push(chunk({ content: piece }))
  } else {
    turn.calls.forEach((tool, index) =>
      events.push(chunk({ tool_calls: [{ index, id: nextId("call"), type: "function", function: { name: tool.name, arguments: JSON.stringify(tool.arguments) } }] }))
    )
  }
  events.push(chunk({}, "text" in turn ? "stop" : "tool_calls"))
  if (includeUsage) {
    const { prompt, completion } = usageOf(call.request, turn)
    events.push({ id, object: "chat.completion.chunk", created: 1767225600, model: `${call.model}-stub-2026`, choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } })
  }
  return events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join("") + "data: [DONE]\n\n"
}
