import type { HttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { Effect, Either, Option } from "effect"
import { AppConfig, type LlmProviderName, type Settings } from "../config/AppConfig.js"
import { DEFAULT_LOCAL_MODEL } from "./local/modelFiles.js"
import { embeddedDefaultModel, type LocalEmbedder, startLocalEmbedder } from "./local/localProvider.js"
import { LlmUsage } from "./LlmUsage.js"
import { anthropicChat } from "./providers/anthropic.js"
import { geminiChat, geminiEmbeddings } from "./providers/gemini.js"
import { ollamaChat, ollamaEmbeddings } from "./providers/ollama.js"
import { type Fetch, nodeFetch } from "./providers/nodeFetch.js"
import { openAiChat, openAiEmbeddings } from "./providers/openai.js"
import type { CallPolicy } from "./retry.js"
import { structuredLlm } from "./structured.js"
import type { ActiveLlm, ChatTransport, EmbedTransport } from "./types.js"

const DEFAULT_BASE_URL: Record<LlmProviderName, string> = {
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com",
  gemini: "https://generativelanguage.googleapis.com",
  ollama: "http://127.0.0.1:11434"
}

const DEFAULT_CHAT_MODEL: Record<LlmProviderName, string> = {
  openai: "gpt-4o-mini",
  anthropic: "claude-haiku-4-5",
  gemini: "gemini-2.5-flash",
  ollama: "llama3.1"
}

const DEFAULT_EMBED_MODEL: Record<Exclude<LlmProviderName, "anthropic">, string> = {
  openai: "text-embedding-3-small",
  gemini: "gemini-embedding-001",
  ollama: "nomic-embed-text"
}

const baseUrl = (url: Option.Option<string>, provider: LlmProviderName) =>
  Option.getOrElse(url, () => DEFAULT_BASE_URL[provider]).replace(/\/+$/, "")

/** How providers reach their endpoints: one pool of kept-alive connections, for the SDK and for plain JSON calls. */
interface Connections {
  readonly http: HttpClient.HttpClient
  readonly fetch: Fetch
}

const chatTransport = (config: Settings, { fetch, http }: Connections, policy: CallPolicy): Either.Either<ChatTransport, string> => {
  const { apiKey, provider } = config.llm
  const model = Option.getOrElse(config.llm.model, () => DEFAULT_CHAT_MODEL[provider])
  const url = baseUrl(config.llm.baseUrl, provider)
  if (provider === "ollama") return Either.right(ollamaChat(http, { model, baseUrl: url, apiKey }))
  if (Option.isNone(apiKey)) {
    return Either.left(`no LLM is configured (SERVICE_LLM_API_KEY is unset for ${provider}; or set SERVICE_LLM_PROVIDER=ollama for a local model)`)
  }
  const endpoint = { model, baseUrl: url, apiKey: apiKey.value }
  switch (provider) {
    case "openai":
      return Either.right(openAiChat(endpoint, policy, fetch))
    case "anthropic":
      return Either.right(anthropicChat(http, endpoint))
    case "gemini":
      return Either.right(geminiChat(http, endpoint))
  }
}

/** The embedding provider defaults to the LLM's, and then shares its key and URL. */
const remoteEmbedTransport = (config: Settings, { fetch, http }: Connections, policy: CallPolicy): Either.Either<EmbedTransport, string> => {
  const provider = Option.getOrElse(config.embed.provider, () => config.llm.provider)
  if (provider === "local") return Either.left("the local provider runs in this process")
  if (provider === "anthropic") {
    return Either.left("anthropic has no embeddings endpoint: set SERVICE_EMBED_PROVIDER (and SERVICE_EMBED_API_KEY) to openai, gemini or ollama")
  }
  const sameAsLlm = provider === config.llm.provider
  const apiKey = Option.orElse(config.embed.apiKey, () => sameAsLlm ? config.llm.apiKey : Option.none())
  const url = baseUrl(Option.orElse(config.embed.baseUrl, () => sameAsLlm ? config.llm.baseUrl : Option.none()), provider)
  const model = Option.getOrElse(config.embed.model, () => DEFAULT_EMBED_MODEL[provider])
  const dimensions = config.embed.dimensions
  if (provider === "ollama") return Either.right(ollamaEmbeddings(http, { model, baseUrl: url, apiKey }, dimensions, policy))
  if (Option.isNone(apiKey)) {
    return Either.left(
      sameAsLlm
        ? "no embedding provider is configured (SERVICE_LLM_API_KEY is unset)"
        : `no embedding provider is configured (SERVICE_EMBED_API_KEY is unset for ${provider})`
    )
  }
  const endpoint = { model, baseUrl: url, apiKey: apiKey.value }
  return Either.right(
    provider === "openai" ? openAiEmbeddings(endpoint, dimensions, policy, fetch) : geminiEmbeddings(http, endpoint, dimensions, policy)
  )
}

/** The embeddings in use, why there are none, and the local model's state when the local provider is chosen. */
interface EmbedChoice {
  readonly transport: Either.Either<EmbedTransport, string>
  readonly remedy: Option.Option<string>
  readonly local: Option.Option<LocalEmbedder>
}

const fromLocal = (local: LocalEmbedder): EmbedChoice => ({ transport: local.transport, remedy: local.remedy, local: Option.some(local) })

/**
 * SERVICE_EMBED_PROVIDER=local runs a model in this process; another provider is called as
 * before. With none configured and no key for the LLM provider's embeddings, a model pulled under
 * the data root is used (the embedded default).
 */
const chooseEmbeddings = (config: Settings, connections: Connections, policy: CallPolicy) =>
  Effect.gen(function*() {
    if (Option.contains(config.embed.provider, "local")) {
      return fromLocal(yield* startLocalEmbedder(config, Option.getOrElse(config.embed.model, () => DEFAULT_LOCAL_MODEL)))
    }
    const remote = remoteEmbedTransport(config, connections, policy)
    const pulled = Option.isNone(config.embed.provider) && Either.isLeft(remote) ? embeddedDefaultModel(config) : Option.none()
    if (Option.isSome(pulled)) return fromLocal(yield* startLocalEmbedder(config, pulled.value))
    return { transport: remote, remedy: Option.none(), local: Option.none() } satisfies EmbedChoice
  })

/**
 * The configured LLM (structured generation with retries, usage recorded in the shared
 * `LlmUsage`) and embedding transport, each absent with the reason when not configured.
 */
export class LlmProvider extends Effect.Service<LlmProvider>()("Memory/LlmProvider", {
  scoped: Effect.gen(function*() {
    const config = yield* AppConfig
    const usage = yield* LlmUsage
    const agent = yield* NodeHttpClient.HttpAgent
    const connections: Connections = {
      http: yield* Effect.provideService(NodeHttpClient.make, NodeHttpClient.HttpAgent, agent),
      fetch: nodeFetch(agent)
    }
    const policy: CallPolicy = { timeoutMs: config.llm.timeoutMs, maxRetries: config.llm.maxRetries }
    const chat = chatTransport(config, connections, policy)
    const embeddings = yield* chooseEmbeddings(config, connections, policy)
    return {
      active: Option.map(Either.getRight(chat), (transport): ActiveLlm => structuredLlm(transport, policy, usage.record)),
      reason: Either.getLeft(chat).pipe(Option.getOrElse(() => "")),
      embeddings: Either.getRight(embeddings.transport),
      embeddingsReason: Either.getLeft(embeddings.transport).pipe(Option.getOrElse(() => "")),
      embeddingsRemedy: embeddings.remedy,
      localEmbedder: embeddings.local
    } as const
  }),
  dependencies: [NodeHttpClient.makeAgentLayer({ keepAlive: true })]
}) {}
