/**
 * Loopback stubs of the four LLM providers the service speaks to, each in its real wire format
 * (paths, auth headers, structured-output parameter, reply and error bodies), answering chat with
 * a deterministic "brain" and embeddings with deterministic vectors. Usage is deterministic too:
 * prompt tokens are the words of system + user, completion tokens the words of the reply, and a
 * system text seen before counts as read from the prompt cache. A reply longer than the request's
 * output-token limit is cut there and says so, as the providers do (Gemini's thinking tokens count
 * against the limit). The OpenAI stub also plays a tool-calling model for agent frameworks, in
 * Chat Completions and in the Responses API (./agent.ts). Tests inject failures, malformed or
 * empty replies and hanging requests, and read back every request received.
 *
 * Run it: npx tsx scripts/stubs/llm-providers.ts <openai|anthropic|gemini|ollama> [port]
 */
import { Buffer } from "node:buffer"
import * as NodeHttp from "node:http"
import type { AddressInfo } from "node:net"
import { agentRespond, type StubAgentRequest, type StubAgentTurn } from "./agent.js"
import { respond as brainRespond } from "./brain.js"
import { stubEmbedding } from "./embedding.js"
import { type AgentCall, agentReply, chatCompletionsStream, readChatCompletions, readResponses } from "./openai-agent.js"

export const STUB_PROVIDERS = ["openai", "anthropic", "gemini", "ollama"] as const
export type StubProviderName = (typeof STUB_PROVIDERS)[number]

/** What the model is asked: the system text, the user message and the reply's JSON schema. */
export interface StubChat {
  readonly system: string
  readonly user: string
  readonly schema: Record<string, unknown>
}

export interface ProviderStubOptions {
  readonly provider: StubProviderName
  readonly port?: number
  /** Vector length when the request names none (default 512). */
  readonly dimensions?: number
  /** Added before every chat reply, for benchmarks (default 0). */
  readonly delayMs?: number
  /** Added before every embedding reply, for benchmarks (default 0). */
  readonly embedDelayMs?: number
  /** The reply's JSON value (default: the brain). */
  readonly respond?: (request: StubChat) => unknown
  /**
   * The turn of a tool-calling model (OpenAI only: Chat Completions without structured output,
   * and the Responses API), default: the stub's agent (./agent.ts).
   */
  readonly agent?: (request: StubAgentRequest) => StubAgentTurn
}

export interface StubRequest {
  readonly method: string
  readonly path: string
  readonly headers: Record<string, string>
  readonly body: unknown
  /** How long the stub took to answer, from the request's arrival to the end of its response (NaN until then). */
  ms: number
}

export interface ProviderStub {
  /** What goes into SERVICE_LLM_BASE_URL. */
  readonly url: string
  readonly provider: StubProviderName
  readonly requests: Array<StubRequest>
  /**
   * The next `count` chat or embedding requests fail with this status, in the provider's error
   * format: with the provider's own way of asking for a wait, and with `code` as its error type
   * instead of the status's usual one.
   */
  readonly failNext: (status: number, count?: number, retryAfterSeconds?: number, code?: string) => void
  /** The next `count` chat replies are not JSON. */
  readonly malformedNext: (count?: number) => void
  /** The next `count` chat replies carry no content (a refusal or a safety stop). */
  readonly emptyNext: (count?: number) => void
  /** The next `count` chat or embedding requests are never answered. */
  readonly hangNext: (count?: number) => void
  /** From now on, chat and embedding replies wait this long (the options' delays until then). */
  readonly setDelays: (chatMs: number, embedMs: number) => void
  /** Chat requests received, whatever their outcome. */
  readonly chatCalls: () => number
  /** TCP connections accepted so far: calls over kept-alive connections add none. */
  readonly connections: () => number
  readonly close: () => Promise<void>
}

type Json = Record<string, unknown>

const record = (value: unknown): Json => typeof value === "object" && value !== null && !Array.isArray(value) ? value as Json : {}
const list = (value: unknown): ReadonlyArray<unknown> => Array.isArray(value) ? value : []
const text = (value: unknown): string => typeof value === "string" ? value : ""
const words = (value: string) => value.match(/\S+/g)?.length ?? 0
/** The text up to the end of its `count`th word. */
const firstWords = (value: string, count: number) => (value.match(/\S+\s*/g) ?? []).slice(0, count).join("").trimEnd()
/** A message content that is a string or a list of text parts. */
const contentText = (content: unknown) => typeof content === "string" ? content : list(content).map((part) => text(record(part).text)).join("")
const servedModel = (model: string) => `${model}-stub-2026`
const isJson = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

const MALFORMED = "Sure! Here is the JSON you asked for: {\"facts\": ["

/** Token counts of one call: `prompt` includes what was read from or written to the cache. */
interface Usage {
  readonly prompt: number
  readonly completion: number
  readonly cacheRead: number
  readonly cacheCreation: number
  readonly thoughts: number
}

type Route = { readonly kind: "chat" | "responses" | "embed" | "embedOne"; readonly model: string }

/** An injected error: the status, the provider's error type (its usual one for the status when absent), and a wait to ask for. */
interface Failure {
  readonly status: number
  readonly code?: string | undefined
  readonly retryAfterSeconds?: number | undefined
}

interface Dialect {
  readonly url: (port: number) => string
  readonly route: (path: string) => Route | undefined
  readonly authProblem: (headers: Record<string, string>) => { readonly status: number; readonly message: string } | undefined
  readonly errorBody: (failure: Failure, message: string) => unknown
  /** Headers of an error reply: where the provider asks for a wait, when it does so in a header. */
  readonly errorHeaders: (failure: Failure) => Record<string, string>
  /**
   * The call, its output-token limit and the tokens spent thinking before the reply (counted
   * against the limit); or why the request is refused (400), as a message or a whole error body.
   */
  readonly chat: (body: Json, route: Route) =>
    | (StubChat & { readonly model: string; readonly maxTokens: number | undefined; readonly thoughts: number })
    | string
    | { readonly refusal: unknown }
  /** `reply` undefined: the provider's way of sending no content; `cutOff`: the reply stopped at the output limit. */
  readonly chatReply: (model: string, reply: string | undefined, usage: Usage, cutOff: boolean) => unknown
  readonly embed?: (body: Json, route: Route, dimensions: number) => unknown
  /** A tool-calling model's call, when the provider's format has one and the request is one. */
  readonly agent?: (body: Json, route: Route) => AgentCall | undefined
}

/** OpenAI and Anthropic refuse schemas their strict mode cannot enforce; so does the stub. */
const strictProblem = (schema: unknown, at = "schema"): string | undefined => {
  if (Array.isArray(schema)) return schema.map((item, i) => strictProblem(item, `${at}[${i}]`)).find((p) => p !== undefined)
  if (!isJson(schema)) return undefined
  if ("$ref" in schema) return `${at}: $ref is not supported by this stub`
  if (schema.type === "object") {
    const properties = Object.keys(record(schema.properties))
    if (schema.additionalProperties !== false) return `${at}: additionalProperties must be false`
    const required = list(schema.required)
    if (properties.some((name) => !required.includes(name))) return `${at}: every property must be required`
  }
  return Object.entries(schema).map(([key, value]) => key === "enum" || key === "const" ? undefined : strictProblem(value, `${at}.${key}`))
    .find((p) => p !== undefined)
}

const OPENAI_TYPES: Record<number, string> = { 400: "invalid_request_error", 401: "invalid_request_error", 403: "permission_error", 404: "not_found_error", 429: "rate_limit_error" }
const ANTHROPIC_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  529: "overloaded_error"
}
const GOOGLE_STATUSES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED"
}

const missingKey = (present: boolean, status: number, message: string) => present ? undefined : { status, message }

/** The standard Retry-After header, as OpenAI, Anthropic and Ollama's proxies send it. */
const retryAfterHeader = (failure: Failure): Record<string, string> =>
  failure.retryAfterSeconds === undefined ? {} : { "retry-after": String(failure.retryAfterSeconds) }

const numberOr = (value: unknown) => typeof value === "number" ? value : undefined

const openai: Dialect = {
  url: (port) => `http://127.0.0.1:${port}/v1`,
  route: (path) =>
    path === "/v1/chat/completions"
      ? { kind: "chat", model: "" }
      : path === "/v1/responses"
      ? { kind: "responses", model: "" }
      : path === "/v1/embeddings"
      ? { kind: "embed", model: "" }
      : undefined,
  authProblem: (headers) =>
    missingKey(/^Bearer \S+$/.test(headers.authorization ?? ""), 401, "You didn't provide an API key (Authorization: Bearer)."),
  errorBody: ({ status, code }, message) => ({
    error: { message, type: code ?? OPENAI_TYPES[status] ?? "server_error", param: null, code: code ?? (status === 401 ? "invalid_api_key" : null) }
  }),
  errorHeaders: retryAfterHeader,
  chat: (body) => {
    // The reasoning models take only their default temperature, and name the parameter refused.
    if (/^(?:o\d|gpt-5)/.test(text(body.model)) && body.temperature !== undefined && body.temperature !== 1) {
      return {
        refusal: {
          error: {
            message: `Unsupported value: 'temperature' does not support ${String(body.temperature)} with this model. Only the default (1) value is supported.`,
            type: "invalid_request_error",
            param: "temperature",
            code: "unsupported_value"
          }
        }
      }
    }
    const format = record(body.response_format)
    const schema = record(format.json_schema).schema
    if (format.type !== "json_schema" || !isJson(schema)) return "response_format of type json_schema with a schema is required"
    const problem = record(format.json_schema).strict === true ? strictProblem(schema) : undefined
    if (problem !== undefined) return `Invalid schema for response_format: ${problem}`
    const messages = list(body.messages).map(record)
    const of = (...roles: Array<string>) => messages.filter((m) => roles.includes(text(m.role))).map((m) => contentText(m.content)).join("\n")
    return { model: text(body.model), system: of("system", "developer"), user: of("user"), schema, maxTokens: numberOr(body.max_completion_tokens) ?? numberOr(body.max_tokens), thoughts: 0 }
  },
  chatReply: (model, reply, usage, cutOff) => ({
    id: `chatcmpl-stub-${usage.prompt}-${usage.completion}`,
    object: "chat.completion",
    created: 1767225600,
    model: servedModel(model),
    choices: [{
      index: 0,
      finish_reason: cutOff ? "length" : "stop",
      message: { role: "assistant", content: reply ?? null, refusal: reply === undefined ? "I can't help with that." : null }
    }],
    usage: {
      prompt_tokens: usage.prompt,
      completion_tokens: usage.completion,
      total_tokens: usage.prompt + usage.completion,
      prompt_tokens_details: { cached_tokens: usage.cacheRead }
    }
  }),
  embed: (body, _route, dimensions) => {
    const inputs = Array.isArray(body.input) ? body.input.map(text) : [text(body.input)]
    const size = typeof body.dimensions === "number" ? body.dimensions : dimensions
    // The SDK asks for base64 (float32, little-endian) unless told "float".
    const encode = (vector: Array<number>) =>
      body.encoding_format === "base64" ? Buffer.from(Float32Array.from(vector).buffer).toString("base64") : vector
    return {
      object: "list",
      model: text(body.model),
      data: inputs.map((input, index) => ({ object: "embedding", index, embedding: encode(stubEmbedding(input, size)) })),
      usage: { prompt_tokens: inputs.reduce((sum, input) => sum + words(input), 0), total_tokens: inputs.reduce((sum, input) => sum + words(input), 0) }
    }
  },
  agent: (body, route) => route.kind === "responses" ? readResponses(body) : readChatCompletions(body)
}

const anthropic: Dialect = {
  url: (port) => `http://127.0.0.1:${port}`,
  route: (path) => path === "/v1/messages" ? { kind: "chat", model: "" } : undefined,
  authProblem: (headers) =>
    missingKey((headers["x-api-key"] ?? "") !== "", 401, "x-api-key header is required") ??
      missingKey((headers["anthropic-version"] ?? "") !== "", 400, "anthropic-version: header is required"),
  errorBody: ({ status, code }, message) => ({ type: "error", error: { type: code ?? ANTHROPIC_TYPES[status] ?? "api_error", message } }),
  errorHeaders: retryAfterHeader,
  chat: (body) => {
    const format = record(record(body.output_config).format)
    if (format.type !== "json_schema" || !isJson(format.schema)) return "output_config.format of type json_schema with a schema is required"
    if (typeof body.max_tokens !== "number") return "max_tokens: Field required"
    if (typeof body.temperature === "number" && (body.temperature < 0 || body.temperature > 1)) return "temperature: range: 0..1"
    const problem = strictProblem(format.schema)
    if (problem !== undefined) return `output_config.format.schema: ${problem}`
    const user = list(body.messages).map(record).filter((m) => m.role === "user").map((m) => contentText(m.content)).join("\n")
    return { model: text(body.model), system: contentText(body.system), user, schema: format.schema, maxTokens: body.max_tokens, thoughts: 0 }
  },
  chatReply: (model, reply, usage, cutOff) => ({
    id: `msg_stub${usage.prompt}x${usage.completion}`,
    type: "message",
    role: "assistant",
    model: servedModel(model),
    content: reply === undefined || reply === "" ? [] : [{ type: "text", text: reply }],
    stop_reason: cutOff ? "max_tokens" : reply === undefined ? "refusal" : "end_turn",
    stop_sequence: null,
    usage: {
      input_tokens: usage.prompt - usage.cacheRead - usage.cacheCreation,
      output_tokens: usage.completion,
      cache_read_input_tokens: usage.cacheRead,
      cache_creation_input_tokens: usage.cacheCreation
    }
  })
}

const GEMINI_PATH = /^\/v1beta\/models\/([^/:]+):(generateContent|batchEmbedContents|embedContent)$/
const THOUGHTS = 3

const gemini: Dialect = {
  url: (port) => `http://127.0.0.1:${port}`,
  route: (path) => {
    const match = GEMINI_PATH.exec(path)
    if (match === null) return undefined
    const kind = match[2] === "generateContent" ? "chat" : match[2] === "embedContent" ? "embedOne" : "embed"
    return { kind, model: decodeURIComponent(match[1]!) }
  },
  authProblem: (headers) =>
    missingKey((headers["x-goog-api-key"] ?? "") !== "", 401, "Method doesn't allow unregistered callers. Please use an API key."),
  // Google asks for a wait in the error's details (google.rpc.RetryInfo), not in a header.
  errorBody: ({ status, code, retryAfterSeconds }, message) => ({
    error: {
      code: status,
      message,
      status: code ?? GOOGLE_STATUSES[status] ?? "INTERNAL",
      ...(retryAfterSeconds === undefined ? {} : { details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${retryAfterSeconds}s` }] })
    }
  }),
  errorHeaders: () => ({}),
  chat: (body, route) => {
    const config = record(body.generationConfig)
    if (!isJson(config.responseJsonSchema) || config.responseMimeType !== "application/json") {
      return "generationConfig.responseJsonSchema with responseMimeType application/json is required"
    }
    const parts = (content: unknown) => list(record(content).parts).map((part) => text(record(part).text)).join("")
    const user = list(body.contents).map(record).filter((c) => c.role === undefined || c.role === "user").map(parts).join("\n")
    // Models think unless told not to; the Pro models cannot be told so.
    const thinkingOff = record(config.thinkingConfig).thinkingBudget === 0
    if (thinkingOff && route.model.includes("-pro")) return "Budget 0 is invalid. This model only works in thinking mode."
    return {
      model: route.model,
      system: parts(body.systemInstruction),
      user,
      schema: config.responseJsonSchema,
      maxTokens: numberOr(config.maxOutputTokens),
      thoughts: thinkingOff ? 0 : THOUGHTS
    }
  },
  chatReply: (model, reply, usage, cutOff) => ({
    candidates: [
      reply === undefined
        ? { finishReason: "SAFETY", index: 0, safetyRatings: [{ category: "HARM_CATEGORY_DANGEROUS_CONTENT", probability: "HIGH", blocked: true }] }
        : {
          // A limit reached while thinking leaves a candidate with no content at all.
          ...(reply === "" ? {} : { content: { role: "model", parts: [{ text: reply }] } }),
          finishReason: cutOff ? "MAX_TOKENS" : "STOP",
          index: 0
        }
    ],
    usageMetadata: {
      promptTokenCount: usage.prompt,
      candidatesTokenCount: usage.completion,
      ...(usage.thoughts === 0 ? {} : { thoughtsTokenCount: usage.thoughts }),
      totalTokenCount: usage.prompt + usage.completion + usage.thoughts,
      ...(usage.cacheRead === 0 ? {} : { cachedContentTokenCount: usage.cacheRead })
    },
    modelVersion: servedModel(model),
    responseId: `stub-${usage.prompt}-${usage.completion}`
  }),
  embed: (body, route, dimensions) => {
    const vector = (request: Json) =>
      stubEmbedding(
        list(record(request.content).parts).map((part) => text(record(part).text)).join(" "),
        typeof request.outputDimensionality === "number" ? request.outputDimensionality : dimensions
      )
    if (route.kind === "embedOne") return { embedding: { values: vector(body) } }
    const requests = list(body.requests).map(record)
    const stray = requests.find((request) => request.model !== `models/${route.model}`)
    if (stray !== undefined) return `* BatchEmbedContentsRequest.requests: model ${JSON.stringify(stray.model)} is not models/${route.model}`
    return { embeddings: requests.map((request) => ({ values: vector(request) })) }
  }
}

const ollama: Dialect = {
  url: (port) => `http://127.0.0.1:${port}`,
  route: (path) => path === "/api/chat" ? { kind: "chat", model: "" } : path === "/api/embed" ? { kind: "embed", model: "" } : undefined,
  authProblem: () => undefined,
  errorBody: (_failure, message) => ({ error: message }),
  errorHeaders: retryAfterHeader,
  chat: (body) => {
    if (!isJson(body.format)) return "format must be a JSON schema for this stub"
    const messages = list(body.messages).map(record)
    const of = (role: string) => messages.filter((m) => m.role === role).map((m) => text(m.content)).join("\n")
    return { model: text(body.model), system: of("system"), user: of("user"), schema: body.format, maxTokens: numberOr(record(body.options).num_predict), thoughts: 0 }
  },
  chatReply: (model, reply, usage, cutOff) => ({
    model: servedModel(model),
    created_at: "2026-01-01T00:00:00Z",
    message: { role: "assistant", content: reply ?? "" },
    done: true,
    done_reason: cutOff ? "length" : "stop",
    prompt_eval_count: usage.prompt,
    eval_count: usage.completion
  }),
  embed: (body, _route, dimensions) => {
    const inputs = Array.isArray(body.input) ? body.input.map(text) : [text(body.input)]
    const size = typeof body.dimensions === "number" ? body.dimensions : dimensions
    return {
      model: text(body.model),
      embeddings: inputs.map((input) => stubEmbedding(input, size)),
      prompt_eval_count: inputs.reduce((sum, input) => sum + words(input), 0)
    }
  }
}

const DIALECTS: Record<StubProviderName, Dialect> = { openai, anthropic, gemini, ollama }

/** Enough of the presented key to show what a careless client would leak: real providers echo it so. */
const keyHint = (headers: Record<string, string>) => {
  const key = (headers["x-api-key"] ?? headers["x-goog-api-key"] ?? headers.authorization ?? "").replace(/^Bearer /, "")
  return key.length > 8 ? `${key.slice(0, 4)}...${key.slice(-4)}` : "(none)"
}

export const startProviderStub = (options: ProviderStubOptions): Promise<ProviderStub> =>
  new Promise((resolve, reject) => {
    const dialect = DIALECTS[options.provider]
    const respond = options.respond ?? brainRespond
    const agent = options.agent ?? agentRespond
    const dimensions = options.dimensions ?? 512
    let delayMs = options.delayMs ?? 0
    let embedDelayMs = options.embedDelayMs ?? 0
    const requests: Array<StubRequest> = []
    const failures: Array<Failure> = []
    const pending = { malformed: 0, empty: 0, hang: 0 }
    const hanging = new Set<NodeHttp.ServerResponse>()
    const timers = new Set<NodeJS.Timeout>()
    const seenSystems = new Set<string>()
    let chats = 0

    const handle = (request: NodeHttp.IncomingMessage, response: NodeHttp.ServerResponse, raw: string, arrived: number) => {
      const path = (request.url ?? "").split("?")[0]!
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(", ") : value ?? ""]))
      let body: unknown = undefined
      try {
        body = raw === "" ? undefined : JSON.parse(raw)
      } catch {
        body = raw // kept as text; answered with a 400 below
      }
      const received: StubRequest = { method: request.method ?? "", path, headers, body, ms: Number.NaN }
      requests.push(received)
      // Benchmarks subtract this provider time from the service's own to get its overhead.
      response.on("finish", () => (received.ms = performance.now() - arrived))
      const send = (status: number, payload: unknown, extra: Record<string, string> = {}) =>
        response.writeHead(status, { "content-type": "application/json", ...extra }).end(JSON.stringify(payload))
      const refuse = (status: number, message: string) => send(status, dialect.errorBody({ status }, message))

      const route = request.method === "POST" ? dialect.route(path) : undefined
      const chatLike = route?.kind === "chat" || route?.kind === "responses"
      if (route === undefined || (!chatLike && dialect.embed === undefined) || (route.kind === "responses" && dialect.agent === undefined)) {
        return refuse(404, `this ${options.provider} stub does not serve ${request.method} ${path}`)
      }
      if (chatLike) chats++
      const auth = dialect.authProblem(headers)
      if (auth !== undefined) return refuse(auth.status, auth.message)
      if (!isJson(body)) return refuse(400, "the request body must be a JSON object")
      if (pending.hang > 0) {
        pending.hang--
        return void hanging.add(response)
      }
      const failure = failures.shift()
      if (failure !== undefined) {
        return send(failure.status, dialect.errorBody(failure, `stub-injected failure for key ${keyHint(headers)}`), dialect.errorHeaders(failure))
      }
      const agentCall = chatLike ? dialect.agent?.(body, route) : undefined
      if (agentCall !== undefined) {
        if (body.stream === true) {
          if (agentCall.api !== "chat") return refuse(400, "this stub streams Chat Completions only: ask the Responses API with stream false")
          const events = chatCompletionsStream(agentCall, agent(agentCall.request), record(body.stream_options).include_usage === true)
          return after(delayMs, () => response.writeHead(200, { "content-type": "text/event-stream" }).end(events))
        }
        return after(delayMs, () => send(200, agentReply(agentCall, agent(agentCall.request))))
      }
      if (route.kind === "embed" || route.kind === "embedOne") {
        const reply = dialect.embed!(body, route, dimensions)
        if (typeof reply === "string") return refuse(400, reply)
        return after(embedDelayMs, () => send(200, reply))
      }

      const call = dialect.chat(body, route)
      if (typeof call === "string") return refuse(400, call)
      if ("refusal" in call) return send(400, call.refusal)
      let reply: string | undefined
      if (pending.empty > 0) {
        pending.empty--
      } else if (pending.malformed > 0) {
        pending.malformed--
        reply = MALFORMED
      } else {
        try {
          reply = JSON.stringify(respond({ system: call.system, user: call.user, schema: call.schema }))
        } catch (error) {
          console.error("the stub's respond function failed:", error)
          return refuse(500, "the stub's respond function failed")
        }
      }
      // The thinking comes first; what is left of the limit bounds the reply.
      const room = call.maxTokens === undefined ? Number.POSITIVE_INFINITY : Math.max(0, call.maxTokens - call.thoughts)
      const cutOff = reply !== undefined && words(reply) > room
      if (cutOff) reply = firstWords(reply!, room)
      const systemWords = words(call.system)
      const cached = seenSystems.has(call.system)
      seenSystems.add(call.system)
      const usage: Usage = {
        prompt: systemWords + words(call.user),
        completion: cutOff ? room : words(reply ?? "I can't help with that."),
        cacheRead: cached ? systemWords : 0,
        cacheCreation: cached ? 0 : systemWords,
        thoughts: call.thoughts
      }
      after(delayMs, () => send(200, dialect.chatReply(call.model, reply, usage, cutOff)))
    }

    /** Runs `answer` after `ms`, at once when 0; a pending answer is cancelled when the stub closes. */
    const after = (ms: number, answer: () => void) => {
      if (ms <= 0) return answer()
      const timer = setTimeout(() => {
        timers.delete(timer)
        answer()
      }, ms)
      timers.add(timer)
    }

    const server = NodeHttp.createServer((request, response) => {
      const arrived = performance.now()
      let raw = ""
      request.on("data", (chunk: Buffer) => (raw += chunk.toString()))
      request.on("end", () => handle(request, response, raw, arrived))
    })
    let connections = 0
    server.on("connection", () => connections++)
    server.on("error", reject)
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port
      resolve({
        url: dialect.url(port),
        provider: options.provider,
        requests,
        failNext: (status, count = 1, retryAfterSeconds, code) => {
          for (let i = 0; i < count; i++) failures.push({ status, code, retryAfterSeconds })
        },
        malformedNext: (count = 1) => void (pending.malformed += count),
        emptyNext: (count = 1) => void (pending.empty += count),
        hangNext: (count = 1) => void (pending.hang += count),
        setDelays: (chatMs, embedMs) => {
          delayMs = chatMs
          embedDelayMs = embedMs
        },
        chatCalls: () => chats,
        connections: () => connections,
        close: () =>
          new Promise<void>((done) => {
            for (const timer of timers) clearTimeout(timer)
            for (const response of hanging) response.destroy()
            server.close(() => done())
            server.closeAllConnections()
          })
      })
    })
  })

const isProvider = (name: string | undefined): name is StubProviderName => STUB_PROVIDERS.some((provider) => provider === name)

if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) {
  const provider = process.argv[2]
  if (!isProvider(provider)) {
    console.error(`usage: npx tsx scripts/stubs/llm-providers.ts <${STUB_PROVIDERS.join("|")}> [port]`)
    process.exit(2)
  }
  void startProviderStub({ provider, port: Number(process.argv[3] ?? 8200) }).then((stub) => {
    const embeddings = provider === "anthropic"
      ? "\n(anthropic has no embeddings: add SERVICE_EMBED_PROVIDER=ollama SERVICE_EMBED_BASE_URL=<an ollama stub's URL> for the vector leg)"
      : ""
    console.log(`${provider} stub on ${stub.url}\nstart the service with:\n` +
      `  SERVICE_LLM_PROVIDER=${provider} SERVICE_LLM_API_KEY=stub-key SERVICE_LLM_BASE_URL=${stub.url}${embeddings}`)
  })
}
