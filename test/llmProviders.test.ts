import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Option, Schema } from "effect"
import { Buffer } from "node:buffer"
import * as NodeHttp from "node:http"
import type { AddressInfo } from "node:net"
import { type ProviderStub, type ProviderStubOptions, startProviderStub, STUB_PROVIDERS, type StubChat, type StubProviderName } from "../scripts/stubs/llm-providers.js"
import { stubEmbedding } from "../scripts/stubs/embedding.js"
import { AppConfig } from "../src/config/AppConfig.js"
import { LlmProvider } from "../src/llm/LlmProvider.js"
import { providerJsonSchema } from "../src/llm/jsonSchema.js"
import { Extraction, Plan, Profile, Reading, Reconciliation } from "../src/llm/tasks.js"
import type { ActiveLlm } from "../src/llm/types.js"
import { Embedder } from "../src/llm/Embedder.js"
import { LlmUsage } from "../src/llm/LlmUsage.js"

const KEY = "sk-test-secret-4a9c"
const SYSTEM = "You are a careful judge."

const Verdict = Schema.Struct({
  answer: Schema.NonEmptyString,
  score: Schema.Int,
  tags: Schema.Array(Schema.Literal("a", "b"))
})

const verdictFor = (request: StubChat) => ({ answer: `echo ${String((JSON.parse(request.user) as { question: string }).question)}`, score: 3, tags: ["a"] })

/** A provider's stub answering with `verdictFor` unless told otherwise. */
const stub = (provider: StubProviderName, options: Omit<ProviderStubOptions, "provider"> = { respond: verdictFor }) =>
  Effect.acquireRelease(
    Effect.promise(() => startProviderStub({ provider, ...options })),
    (running) => Effect.promise(() => running.close())
  )

const envFor = (running: ProviderStub, extra: Record<string, string> = {}): Record<string, string> => ({
  SERVICE_LLM_PROVIDER: running.provider,
  SERVICE_LLM_BASE_URL: `${running.url}/`,
  SERVICE_LLM_MODEL: "judge-1",
  SERVICE_LLM_MAX_RETRIES: "1",
  ...(running.provider === "ollama" ? {} : { SERVICE_LLM_API_KEY: KEY }),
  ...extra
})

const configured = (env: Record<string, string>) =>
  LlmProvider.Default.pipe(
    Layer.provideMerge(LlmUsage.Default),
    Layer.provide(AppConfig.layer),
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries({ SERVICE_API_KEY: "test", ...env })))))
  )

/** Runs `use` with the configured LLM and the usage counter it records into. */
const withLlm = <A, E>(env: Record<string, string>, use: (llm: ActiveLlm, usage: LlmUsage) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const provider = yield* LlmProvider
    const llm = yield* Option.match(provider.active, { onNone: () => Effect.dieMessage(provider.reason), onSome: Effect.succeed })
    return yield* use(llm, yield* LlmUsage)
  }).pipe(Effect.provide(configured(env)))

const ask = (llm: ActiveLlm, question = "why?", limits: { readonly maxTokens?: number; readonly temperature?: number } = {}) =>
  llm.generate({
    operation: "answer",
    phase: "read",
    system: SYSTEM,
    input: { question },
    schemaName: "verdict",
    schema: Verdict,
    maxTokens: limits.maxTokens ?? 200,
    temperature: limits.temperature ?? 0
  })

/** A value inside a decoded JSON body, by keys. */
const at = (value: unknown, ...keys: ReadonlyArray<string | number>): unknown =>
  keys.reduce<unknown>((node, key) => typeof node === "object" && node !== null ? (node as Record<string | number, unknown>)[key] : undefined, value)

const words = (text: string) => text.match(/\S+/g)?.length ?? 0

interface Wire {
  readonly chatPath: string
  readonly schema: (body: unknown) => unknown
  readonly model: (request: { readonly path: string; readonly body: unknown }) => unknown
  readonly auth: Record<string, string | undefined>
  readonly serverError: number
  readonly errorCode: (status: number) => string | undefined
  readonly thoughts: number
  readonly temperature: (body: unknown) => unknown
}

const WIRE: Record<StubProviderName, Wire> = {
  openai: {
    chatPath: "/v1/chat/completions",
    schema: (body) => at(body, "response_format", "json_schema", "schema"),
    model: (request) => at(request.body, "model"),
    auth: { authorization: `Bearer ${KEY}` },
    serverError: 500,
    errorCode: (status) => status === 429 ? "rate_limit_error" : "server_error",
    thoughts: 0,
    temperature: (body) => at(body, "temperature")
  },
  anthropic: {
    chatPath: "/v1/messages",
    schema: (body) => at(body, "output_config", "format", "schema"),
    model: (request) => at(request.body, "model"),
    auth: { "x-api-key": KEY, "anthropic-version": "2023-06-01" },
    serverError: 529,
    errorCode: (status) => status === 429 ? "rate_limit_error" : "overloaded_error",
    thoughts: 0,
    temperature: (body) => at(body, "temperature")
  },
  gemini: {
    chatPath: "/v1beta/models/judge-1:generateContent",
    schema: (body) => at(body, "generationConfig", "responseJsonSchema"),
    model: (request) => request.path.split("/")[3]?.split(":")[0],
    auth: { "x-goog-api-key": KEY },
    serverError: 503,
    errorCode: (status) => status === 429 ? "RESOURCE_EXHAUSTED" : "UNAVAILABLE",
    thoughts: 3,
    temperature: (body) => at(body, "generationConfig", "temperature")
  },
  ollama: {
    chatPath: "/api/chat",
    schema: (body) => at(body, "format"),
    model: (request) => at(request.body, "model"),
    auth: { authorization: undefined },
    serverError: 500,
    errorCode: () => undefined,
    thoughts: 0,
    temperature: (body) => at(body, "options", "temperature")
  }
}

const lastChat = (running: ProviderStub) => running.requests.filter((request) => request.path === WIRE[running.provider].chatPath).at(-1)!

/** Leaks nothing of the key, whatever the provider's error body said. */
const expectNoKey = (error: unknown) => expect(JSON.stringify(error)).not.toContain(KEY.slice(-4))

/** An OpenAI-compatible endpoint on loopback (not the stub) that answers every call with this body. */
const compatibleServer = (reply: unknown) =>
  Effect.acquireRelease(
    Effect.async<NodeHttp.Server>((resume) => {
      const server = NodeHttp.createServer((request, response) => {
        request.resume()
        request.on("end", () => {
          response.writeHead(200, { "content-type": "application/json" })
          response.end(JSON.stringify(reply))
        })
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) => Effect.async<void>((resume) => {
      server.close(() => resume(Effect.void))
    })
  )

const compatibleEnv = (server: NodeHttp.Server) => ({
  SERVICE_LLM_PROVIDER: "openai",
  SERVICE_LLM_API_KEY: KEY,
  SERVICE_LLM_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
  SERVICE_LLM_MAX_RETRIES: "0"
})

for (const provider of STUB_PROVIDERS) {
  const wire = WIRE[provider]

  describe(`${provider} through its stub`, () => {
    it.scopedLive("a structured round trip: the wire request, the decoded value, the usage of each call", () =>
      Effect.gen(function*() {
        const running = yield* stub(provider)
        yield* withLlm(envFor(running), (llm, usage) =>
          Effect.gen(function*() {
            expect({ provider: llm.provider, model: llm.model }).toEqual({ provider, model: "judge-1" })
            const first = yield* ask(llm)
            expect(first.value).toEqual({ answer: "echo why?", score: 3, tags: ["a"] })
            const request = lastChat(running)
            expect(request.method).toBe("POST")
            expect(wire.model(request)).toBe("judge-1")
            for (const [header, value] of Object.entries(wire.auth)) expect(request.headers[header]).toBe(value)
            expect(wire.schema(request.body)).toEqual(providerJsonSchema(Verdict))
            expect(JSON.stringify(request.body)).toContain(JSON.stringify(JSON.stringify({ question: "why?" })))

            const second = yield* ask(llm, "and now?")
            const completion = (question: string) => words(JSON.stringify(verdictFor({ system: "", user: JSON.stringify({ question }), schema: {} }))) + wire.thoughts
            const prompt = (question: string) => words(SYSTEM) + words(JSON.stringify({ question }))
            // The stub counts a system text it has seen before as read from the prompt cache.
            const cached = provider === "ollama" ? 0 : words(SYSTEM)
            const callUsage = (question: string, cacheRead: number, cacheCreation: number) => ({
              phase: "read",
              model: "judge-1",
              served_model: "judge-1-stub-2026",
              usage_available: true,
              prompt_tokens: prompt(question),
              completion_tokens: completion(question),
              total_tokens: prompt(question) + completion(question),
              cached_input_tokens: cacheRead,
              cache_creation_input_tokens: cacheCreation
            })
            expect(first.calls).toEqual([callUsage("why?", 0, provider === "anthropic" ? words(SYSTEM) : 0)])
            expect(second.calls).toEqual([callUsage("and now?", cached, 0)])
            const { byOperation, total } = yield* usage.snapshot
            expect(total).toMatchObject({ calls: 2, calls_with_usage: 2, prompt_tokens: prompt("why?") + prompt("and now?"), cached_input_tokens: cached, served_models: ["judge-1-stub-2026"] })
            expect(byOperation.get("answer")?.by_phase.read?.calls).toBe(2)
          }))
      }))

    it.scopedLive("calls reuse kept-alive connections; an endpoint that refuses connections is ProviderUnavailable", () =>
      Effect.gen(function*() {
        const running = yield* stub(provider)
        yield* withLlm(envFor(running), (llm) =>
          Effect.gen(function*() {
            for (let i = 0; i < 4; i++) yield* ask(llm, `question ${i}`)
            expect(running.chatCalls()).toBe(4)
            expect(running.connections()).toBe(1)
            yield* Effect.promise(() => running.close())
            const error = yield* Effect.flip(ask(llm))
            expect(error._tag).toBe("ProviderUnavailable")
            expect(error.message).toBe(`${provider} could not be reached`)
            expect(error.details).toMatchObject({ provider, retryable: true })
            expectNoKey(error)
          }))
      }))

    it.scopedLive("a 429 is retried after the provider's Retry-After; past the budget it is ProviderRateLimited", () =>
      Effect.gen(function*() {
        const running = yield* stub(provider)
        yield* withLlm(envFor(running), (llm, usage) =>
          Effect.gen(function*() {
            running.failNext(429, 1, 0.5)
            const started = Date.now()
            const generated = yield* ask(llm)
            expect(Date.now() - started).toBeGreaterThanOrEqual(480)
            expect(generated.calls).toHaveLength(1)
            expect(running.chatCalls()).toBe(2)

            running.failNext(429, 2)
            const error = yield* Effect.flip(ask(llm))
            expect(error._tag).toBe("ProviderRateLimited")
            expect(error.details).toMatchObject({ provider, status: 429 })
            expect(error.details.provider_code).toBe(wire.errorCode(429))
            expectNoKey(error)
            expect(running.chatCalls()).toBe(4)
            expect((yield* usage.snapshot).total.calls).toBe(1)
          }))
      }))

    if (provider === "openai") {
      it.scopedLive("a reasoning model that refuses a temperature is asked again without one, and never sent one after", () =>
        Effect.gen(function*() {
          const running = yield* stub(provider)
          yield* withLlm(envFor(running, { SERVICE_LLM_MODEL: "gpt-5-mini" }), (llm, usage) =>
            Effect.gen(function*() {
              expect((yield* ask(llm)).value.answer).toBe("echo why?")
              expect((yield* ask(llm, "and then?")).value.answer).toBe("echo and then?")
              const chats = running.requests.filter((request) => request.path === wire.chatPath)
              expect(chats.map((request) => at(request.body, "temperature"))).toEqual([0, undefined, undefined])
              expect((yield* usage.snapshot).total.calls).toBe(2)
            }))
        }))

      it.scopedLive("a compatible server's `usage: null` is no usage, not zero tokens", () =>
        Effect.gen(function*() {
          const server = yield* compatibleServer({
            id: "chatcmpl-1",
            object: "chat.completion",
            created: 1767225600,
            model: "judge-1",
            choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: JSON.stringify({ answer: "yes", score: 1, tags: [] }), refusal: null } }],
            usage: null
          })
          yield* withLlm(compatibleEnv(server), (llm) =>
            Effect.gen(function*() {
              const generated = yield* ask(llm)
              expect(generated.calls[0]).toMatchObject({ usage_available: false, total_tokens: 0 })
            }))
        }))

      it.scopedLive("a 429 for a spent quota (insufficient_quota) is not retried: ProviderUnavailable", () =>
        Effect.gen(function*() {
          const running = yield* stub(provider)
          yield* withLlm(envFor(running), (llm) =>
            Effect.gen(function*() {
              running.failNext(429, 2, undefined, "insufficient_quota")
              const error = yield* Effect.flip(ask(llm))
              expect(error._tag).toBe("ProviderUnavailable")
              expect(error.message).toBe("openai answered with status 429 (insufficient_quota)")
              expect(error.details).toMatchObject({ status: 429, provider_code: "insufficient_quota", retryable: false })
              expect(running.chatCalls()).toBe(1)
            }))
        }))
    }

    it.scopedLive(`a ${wire.serverError} past the budget is ProviderUnavailable; a 401 is not retried`, () =>
      Effect.gen(function*() {
        const running = yield* stub(provider)
        yield* withLlm(envFor(running), (llm) =>
          Effect.gen(function*() {
            running.failNext(wire.serverError, 2)
            const unavailable = yield* Effect.flip(ask(llm))
            expect(unavailable._tag).toBe("ProviderUnavailable")
            expect(unavailable.details).toMatchObject({ status: wire.serverError, retryable: true })
            expect(running.chatCalls()).toBe(2)

            running.failNext(401, 3)
            const refused = yield* Effect.flip(ask(llm))
            expect(refused._tag).toBe("ProviderUnavailable")
            expect(refused.message).toBe(`${provider} answered with status 401${provider === "ollama" ? "" : ` (${at(refused.details, "provider_code")})`}`)
            expect(refused.details).toMatchObject({ status: 401, retryable: false })
            expectNoKey(refused)
            expect(running.chatCalls()).toBe(3)
          }))
      }))

    it.scopedLive("a malformed reply is retried and recorded; past the budget it is ProviderInvalidOutput", () =>
      Effect.gen(function*() {
        const running = yield* stub(provider)
        yield* withLlm(envFor(running), (llm, usage) =>
          Effect.gen(function*() {
            running.malformedNext(1)
            const generated = yield* ask(llm)
            expect(generated.value.score).toBe(3)
            expect(generated.calls).toHaveLength(2)
            expect((yield* usage.snapshot).total.calls).toBe(2)

            running.malformedNext(2)
            const error = yield* Effect.flip(ask(llm))
            expect(error._tag).toBe("ProviderInvalidOutput")
            expect(error.details).toMatchObject({ provider, schema: "verdict", attempts: 2 })
            expect((yield* usage.snapshot).total.calls).toBe(4)
          }))
      }))

    it.scopedLive("no content is retried, then ProviderEmptyContent", () =>
      Effect.gen(function*() {
        const running = yield* stub(provider)
        yield* withLlm(envFor(running), (llm) =>
          Effect.gen(function*() {
            running.emptyNext(2)
            expect((yield* Effect.flip(ask(llm)))._tag).toBe("ProviderEmptyContent")
            expect(running.chatCalls()).toBe(2)
          }))
      }))

    it.scopedLive("a reply cut off at the output-token limit is not asked again: ProviderInvalidOutput naming the limit", () =>
      Effect.gen(function*() {
        const running = yield* stub(provider)
        yield* withLlm(envFor(running), (llm, usage) =>
          Effect.gen(function*() {
            // The verdict for this question is six words long: four tokens cut it mid-document.
            const question = "why is the sky blue?"
            expect((yield* ask(llm, question, { maxTokens: 6 + wire.thoughts })).value.answer).toBe(`echo ${question}`)
            const limits = wire.thoughts > 0 ? [4, wire.thoughts] : [4]
            for (const maxTokens of limits) {
              const error = yield* Effect.flip(ask(llm, question, { maxTokens }))
              expect(error._tag).toBe("ProviderInvalidOutput")
              expect(error.message).toBe(`${provider}'s reply reached its limit of ${maxTokens} output tokens before the verdict document was complete`)
              expect(error.details).toMatchObject({ provider, schema: "verdict", max_tokens: maxTokens, retryable: false })
            }
            // One call each: the successful one and one per limit, every one of them recorded.
            expect(running.chatCalls()).toBe(1 + limits.length)
            expect((yield* usage.snapshot).total.calls).toBe(1 + limits.length)
          }))
      }))

    it.scopedLive(`temperature up to 2 is accepted${provider === "anthropic" ? ", sent as Anthropic's maximum of 1 above it" : ""}`, () =>
      Effect.gen(function*() {
        const running = yield* stub(provider)
        yield* withLlm(envFor(running), (llm) =>
          Effect.gen(function*() {
            yield* ask(llm, "why?", { temperature: 1.5 })
            expect(wire.temperature(lastChat(running).body)).toBe(provider === "anthropic" ? 1 : 1.5)
            yield* ask(llm, "why?", { temperature: 0.7 })
            expect(wire.temperature(lastChat(running).body)).toBe(0.7)
          }))
      }))

    it.scopedLive("each attempt has its own timeout: a hanging provider is ProviderTimeout", () =>
      Effect.gen(function*() {
        const running = yield* stub(provider)
        // Long enough for a healthy attempt on a loaded machine, short enough to keep the test quick.
        yield* withLlm(envFor(running, { SERVICE_LLM_TIMEOUT_MS: "800" }), (llm) =>
          Effect.gen(function*() {
            running.hangNext(1)
            expect((yield* ask(llm)).calls).toHaveLength(1)
            running.hangNext(2)
            const started = Date.now()
            const error = yield* Effect.flip(ask(llm))
            expect(error._tag).toBe("ProviderTimeout")
            expect(error.message).toBe(`${provider} did not answer within 800 ms`)
            // Two attempts of 800 ms and a backoff: far below the test's own timeout.
            expect(Date.now() - started).toBeLessThan(10_000)
            expect(running.chatCalls()).toBe(4)
          }))
      }))
  })
}

describe("gemini thinking", () => {
  const question = "why is the sky blue?"
  const replyWords = 6

  it.scopedLive("a 2.5 Flash model is told not to think: the whole limit is the reply's", () =>
    Effect.gen(function*() {
      const running = yield* stub("gemini")
      yield* withLlm(envFor(running, { SERVICE_LLM_MODEL: "gemini-2.5-flash" }), (llm) =>
        Effect.gen(function*() {
          const generated = yield* ask(llm, question, { maxTokens: replyWords })
          expect(generated.value.answer).toBe(`echo ${question}`)
          expect(at(running.requests.at(-1)!.body, "generationConfig", "thinkingConfig")).toEqual({ thinkingBudget: 0 })
          expect(generated.calls[0]!.completion_tokens).toBe(replyWords)
        }))
    }))

  it.scopedLive("another model is sent no thinking budget (a Pro model refuses 0), and its thinking counts against the limit", () =>
    Effect.gen(function*() {
      const running = yield* stub("gemini")
      yield* withLlm(envFor(running, { SERVICE_LLM_MODEL: "gemini-2.5-pro" }), (llm) =>
        Effect.gen(function*() {
          const generated = yield* ask(llm, question, { maxTokens: replyWords + WIRE.gemini.thoughts })
          expect(at(running.requests.at(-1)!.body, "generationConfig", "thinkingConfig")).toBeUndefined()
          expect(generated.calls[0]!.completion_tokens).toBe(replyWords + WIRE.gemini.thoughts)
          const error = yield* Effect.flip(ask(llm, question, { maxTokens: replyWords }))
          expect(error.details).toMatchObject({ max_tokens: replyWords, retryable: false })
        }))
    }))
})

describe("embeddings", () => {
  const texts = Array.from({ length: 130 }, (_, i) => `memory number ${i} about ${i % 2 === 0 ? "cars" : "films"}`)
  const EMBED: Record<"openai" | "gemini" | "ollama", { readonly path: string; readonly batchSizes: (body: unknown) => number }> = {
    openai: { path: "/v1/embeddings", batchSizes: (body) => (at(body, "input") as Array<string>).length },
    gemini: { path: "/v1beta/models/embed-1:batchEmbedContents", batchSizes: (body) => (at(body, "requests") as Array<unknown>).length },
    ollama: { path: "/api/embed", batchSizes: (body) => (at(body, "input") as Array<string>).length }
  }

  for (const provider of ["openai", "gemini", "ollama"] as const) {
    it.scopedLive(`${provider}: vectors of the configured length, in order, in batches`, () =>
      Effect.gen(function*() {
        const running = yield* stub(provider)
        const embeddings = yield* Effect.map(LlmProvider, (llm) => llm.embeddings).pipe(
          Effect.provide(configured(envFor(running, { SERVICE_EMBED_MODEL: "embed-1", SERVICE_EMBED_DIMENSIONS: "24" })))
        )
        const transport = Option.getOrThrow(embeddings)
        expect({ provider: transport.provider, model: transport.model }).toEqual({ provider, model: "embed-1" })
        const vectors = yield* transport.embed(texts)
        expect(vectors).toEqual(texts.map((text) => Float32Array.from(stubEmbedding(text, 24))))
        const requests = running.requests.filter((request) => request.path === EMBED[provider].path)
        expect(requests.map((request) => EMBED[provider].batchSizes(request.body))).toEqual(provider === "gemini" ? [100, 30] : [64, 64, 2])
        const body = requests[0]!.body
        if (provider === "gemini") {
          expect(at(body, "requests", 0)).toEqual({ model: "models/embed-1", content: { parts: [{ text: texts[0] }] }, outputDimensionality: 24 })
          expect(requests[0]!.headers["x-goog-api-key"]).toBe(KEY)
        } else {
          expect(body).toMatchObject({ model: "embed-1", dimensions: 24, ...(provider === "openai" ? { encoding_format: "base64" } : {}) })
        }
      }))
  }

  const embedderWith = (env: Record<string, string>) => Effect.provide(Embedder, Embedder.Default.pipe(Layer.provideMerge(configured(env))))

  it.scopedLive("the Embedder remembers query vectors and reports a failure as ProviderUnavailable", () =>
    Effect.gen(function*() {
      const running = yield* stub("gemini")
      const embedder = yield* embedderWith(envFor(running, { SERVICE_EMBED_MODEL: "embed-1" }))
      const active = Option.getOrThrow(embedder.active)
      expect(active.model).toBe("embed-1")
      const first = yield* active.embedQuery("where do I live")
      expect(yield* active.embedQuery("where do I live")).toBe(first)
      expect(running.requests).toHaveLength(1)
      running.failNext(429, 2)
      const error = yield* Effect.flip(active.embed(["another text"]))
      expect(error._tag).toBe("ProviderUnavailable")
      expectNoKey(error)
    }))

  it.scopedLive("anthropic has no embedder, and says what to set; another embedding provider can serve it", () =>
    Effect.gen(function*() {
      const chat = yield* stub("anthropic")
      const alone = yield* embedderWith(envFor(chat))
      expect(Option.isNone(alone.active)).toBe(true)
      expect(alone.reason).toBe("anthropic has no embeddings endpoint: set SERVICE_EMBED_PROVIDER (and SERVICE_EMBED_API_KEY) to openai, gemini or ollama")

      const local = yield* stub("ollama")
      const paired = yield* embedderWith(envFor(chat, { SERVICE_EMBED_PROVIDER: "ollama", SERVICE_EMBED_BASE_URL: local.url }))
      const vectors = yield* Option.getOrThrow(paired.active).embed(["hello there"])
      expect(vectors[0]).toHaveLength(512)
      expect(local.requests[0]).toMatchObject({ path: "/api/embed", body: { model: "nomic-embed-text", input: ["hello there"] } })
      expect(local.requests[0]?.headers.authorization).toBeUndefined()
    }))

  it.scopedLive("ollama needs no key, and sends one as a bearer token when set", () =>
    Effect.gen(function*() {
      const running = yield* stub("ollama")
      yield* withLlm(envFor(running, { SERVICE_LLM_API_KEY: KEY }), (llm) => ask(llm))
      expect(lastChat(running).headers.authorization).toBe(`Bearer ${KEY}`)
    }))

  it.scopedLive("without a key nothing is configured, and the reasons say so", () =>
    Effect.gen(function*() {
      const provider = yield* Effect.provide(LlmProvider, configured({ SERVICE_LLM_PROVIDER: "gemini" }))
      expect(Option.isNone(provider.active) && Option.isNone(provider.embeddings)).toBe(true)
      expect(provider.reason).toContain("SERVICE_LLM_API_KEY is unset for gemini")
      expect(provider.embeddingsReason).toBe("no embedding provider is configured (SERVICE_LLM_API_KEY is unset)")
      const split = yield* Effect.provide(LlmProvider, configured({ SERVICE_LLM_API_KEY: KEY, SERVICE_EMBED_PROVIDER: "gemini" }))
      expect(split.embeddingsReason).toBe("no embedding provider is configured (SERVICE_EMBED_API_KEY is unset for gemini)")
    }))

  const openAiEmbedderAt = (server: NodeHttp.Server) =>
    Effect.map(LlmProvider, (llm) => Option.getOrThrow(llm.embeddings)).pipe(Effect.provide(configured(compatibleEnv(server))))

  const embeddingsReply = (items: ReadonlyArray<unknown>) =>
    ({ object: "list", model: "embed-1", data: items.map((embedding, index) => ({ object: "embedding", index, embedding })), usage: { prompt_tokens: 2, total_tokens: 2 } })

  it.scopedLive("openai: a compatible server that answers plain arrays whatever the format asked is read too", () =>
    Effect.gen(function*() {
      const transport = yield* openAiEmbedderAt(yield* compatibleServer(embeddingsReply([[0.25, -0.5], [1, 0]])))
      expect(yield* transport.embed(["a", "b"])).toEqual([Float32Array.of(0.25, -0.5), Float32Array.of(1, 0)])
    }))

  for (const [what, embedding] of [
    ["base64 of a length that is not whole float32 values", Buffer.from([1, 2, 3]).toString("base64")],
    ["an array holding a string", [0.5, "0.5"]],
    ["a value that is not finite", Buffer.from(Float32Array.of(0.5, Number.NaN).buffer).toString("base64")],
    ["no vector at all", null]
  ] as const) {
    it.scopedLive(`openai: an embedding that is ${what} is ProviderUnavailable, never a stored vector`, () =>
      Effect.gen(function*() {
        const transport = yield* openAiEmbedderAt(yield* compatibleServer(embeddingsReply([embedding])))
        const error = yield* Effect.flip(transport.embed(["a"]))
        expect(error._tag).toBe("ProviderUnavailable")
        expect(error.message).toBe("openai sent a reply in an unexpected format")
      }))
  }

  it.scopedLive("the gemini stub also answers a single embedContent", () =>
    Effect.gen(function*() {
      const running = yield* stub("gemini", { dimensions: 8, respond: verdictFor })
      const response = yield* Effect.promise(() =>
        fetch(`${running.url}/v1beta/models/embed-1:embedContent`, {
          method: "POST",
          headers: { "x-goog-api-key": KEY, "content-type": "application/json" },
          body: JSON.stringify({ content: { parts: [{ text: "a car" }] } })
        }).then((reply) => reply.json())
      )
      expect(response).toEqual({ embedding: { values: stubEmbedding("a car", 8) } })
    }))

  // Benchmarks subtract the stub's recorded time from the service's, so a delayed reply must be counted in it.
  it.scopedLive("the stub holds embedding replies for embedDelayMs and chat replies for delayMs, both changeable while it runs", () =>
    Effect.gen(function*() {
      const running = yield* stub("openai", { embedDelayMs: 400, respond: verdictFor })
      const transport = Option.getOrThrow(yield* Effect.map(LlmProvider, (llm) => llm.embeddings).pipe(Effect.provide(configured(envFor(running)))))
      yield* transport.embed(["a car"])
      running.setDelays(400, 0)
      yield* withLlm(envFor(running), (llm) => ask(llm))
      const [embedding, chat] = running.requests
      expect([embedding?.path, chat?.path]).toEqual(["/v1/embeddings", "/v1/chat/completions"])
      // Timers never fire early by more than the clock's millisecond rounding.
      expect(embedding!.ms).toBeGreaterThanOrEqual(399)
      expect(chat!.ms).toBeGreaterThanOrEqual(399)
    }))
})

describe("the reply's JSON schema", () => {
  it("is inlined, closed, fully required and free of the bounds providers refuse", () => {
    const Tag = Schema.Struct({ name: Schema.NonEmptyString, weight: Schema.Int.pipe(Schema.between(0, 5)) }).annotations({ identifier: "Tag" })
    const schema = providerJsonSchema(Schema.Struct({ tags: Schema.Array(Tag), note: Schema.optional(Schema.String) }))
    expect(schema).toEqual({
      type: "object",
      required: ["tags", "note"],
      properties: {
        tags: {
          type: "array",
          items: {
            type: "object",
            required: ["name", "weight"],
            properties: {
              name: { type: "string", description: "a non empty string", title: "nonEmptyString" },
              weight: { type: "integer", description: "a number between 0 and 5", title: "between(0, 5)" }
            },
            additionalProperties: false
          }
        },
        note: { type: "string" }
      },
      additionalProperties: false
    })
  })

  const task = <A, I>(schemaName: string, schema: Schema.Schema<A, I>, input: unknown) => (llm: ActiveLlm) =>
    Effect.map(
      llm.generate({ operation: "ingest", phase: schemaName, system: "Do the task.", input, schemaName, schema, maxTokens: 300, temperature: 0 }),
      (generated) => generated.calls.length
    )
  const TASKS = [
    task("extraction", Extraction, { session_id: "s1", session_time: "2023-05-08T14:30:00", turns: [{ turn: 1, role: "user", text: "I live in Paris." }] }),
    task("reconciliation", Reconciliation, { session_id: "s1", facts: [] }),
    task("plan", Plan, { question: "Where do I live?", current_date: "2024-01-01", step: 1, max_steps: 3, searches: [], evidence: [] }),
    task("reading", Reading, { question: "Where do I live?", current_date: "2024-01-01", evidence: [{ id: "e1", text: "The user lives in Paris.", date: "2023-05-08" }] }),
    task("profile", Profile, { entity: "user", facts: [] })
  ]

  for (const provider of ["openai", "anthropic"] as const) {
    it.scopedLive(`every task's schema passes ${provider}'s strict mode, answered by the default brain`, () =>
      Effect.gen(function*() {
        const running = yield* stub(provider, {})
        const calls = yield* withLlm(envFor(running), (llm) => Effect.forEach(TASKS, (run) => run(llm)))
        expect(calls).toEqual(TASKS.map(() => 1))
      }))
  }
})
