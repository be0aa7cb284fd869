import type { LanguageModelMiddleware } from "ai"

type TransformParams = NonNullable<LanguageModelMiddleware["transformParams"]>
export type CallOptions = Parameters<TransformParams>[0]["params"]
type Message = CallOptions["prompt"][number]
type WrapGenerate = NonNullable<LanguageModelMiddleware["wrapGenerate"]>
export type GenerateResult = Awaited<ReturnType<Parameters<WrapGenerate>[0]["doGenerate"]>>
type WrapStream = NonNullable<LanguageModelMiddleware["wrapStream"]>
export type StreamResult = Awaited<ReturnType<Parameters<WrapStream>[0]["doStream"]>>
type StreamPart = StreamResult["stream"] extends ReadableStream<infer Part> ? Part : never

const textOfParts = (parts: ReadonlyArray<{ readonly type: string }>) =>
  parts.map((part) => "text" in part && typeof part.text === "string" && part.type === "text" ? part.text : "").join("").trim()

/** What the user said last in a prompt ("" when there is no user message). */
export const lastUserText = (prompt: ReadonlyArray<Message>) => {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const message = prompt[i]!
    if (message.role === "user") return textOfParts(message.content)
  }
  return ""
}

/** The prompt with a system message added after its leading system messages. */
export const withSystemMessage = (prompt: ReadonlyArray<Message>, content: string): Array<Message> => {
  const at = prompt.findIndex((message) => message.role !== "system")
  const split = at === -1 ? prompt.length : at
  return [...prompt.slice(0, split), { role: "system", content }, ...prompt.slice(split)]
}

/** The final text of a generation; undefined for a step that calls tools (the answer comes later). */
export const finalText = (result: GenerateResult) =>
  result.content.some((part) => part.type === "tool-call") ? undefined : textOfParts(result.content)

/**
 * The stream passed through unchanged, its final text handed to `onText` once it ends (not for a
 * step that calls tools, nor for a stream that fails).
 */
export const watchFinalText = (result: StreamResult, onText: (text: string) => void): StreamResult => {
  let text = ""
  let calledTools = false
  const watch = new TransformStream<StreamPart, StreamPart>({
    transform: (part, controller) => {
      if (part.type === "text-delta") text += part.delta
      if (part.type === "tool-call") calledTools = true
      controller.enqueue(part)
    },
    flush: () => {
      if (!calledTools) onText(text.trim())
    }
  })
  return { ...result, stream: result.stream.pipeThrough(watch) }
}
