import { Effect } from "effect"
import { type ProviderStub, type ProviderStubOptions, startProviderStub } from "../../scripts/stubs/llm-providers.js"

export type ProviderName = "openai" | "anthropic" | "gemini" | "ollama"

/** A stub of one LLM provider on loopback for the enclosing scope. */
export const providerStub = (provider: ProviderName = "openai", options: Omit<ProviderStubOptions, "provider"> = {}) =>
  Effect.acquireRelease(
    Effect.promise(() => startProviderStub({ provider, ...options })),
    (stub) => Effect.promise(() => stub.close())
  )

/** The service's settings that point its LLM (and embeddings, where the provider has them) at a stub. */
export const llmEnv = (stub: ProviderStub): Record<string, string> => ({
  SERVICE_LLM_PROVIDER: stub.provider,
  SERVICE_LLM_API_KEY: "stub-key-7d2e",
  SERVICE_LLM_BASE_URL: stub.url,
  SERVICE_LLM_MAX_RETRIES: "1"
})

/** The chat requests a stub received (embedding requests left out). */
export const chatRequests = (stub: ProviderStub) =>
  stub.requests.filter((request) => /chat|messages|generateContent/.test(request.path))
