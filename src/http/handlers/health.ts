import { HttpApiBuilder } from "@effect/platform"
import { Effect, Option } from "effect"
import { MemoryApi } from "../../api/Api.js"
import { Health } from "../../api/HealthApi.js"
import { AppConfig } from "../../config/AppConfig.js"
import { Embedder } from "../../llm/Embedder.js"
import { SERVICE_VERSION, STORE_SCHEMA_VERSION } from "../../version.js"

export const HealthLive = HttpApiBuilder.group(MemoryApi, "health", (handlers) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const embedder = yield* Embedder
    const health = new Health({
      status: "ok",
      version: SERVICE_VERSION,
      schema_version: STORE_SCHEMA_VERSION,
      auth: config.authDisabled ? "disabled" : "enabled",
      ...Option.match(embedder.local, { onNone: () => ({}), onSome: (local) => ({ embeddings: local.state }) })
    })
    return handlers.handle("health", () => Effect.succeed(health))
  }))
