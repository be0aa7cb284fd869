import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { MemoryApi } from "../../api/Api.js"
import { Health } from "../../api/HealthApi.js"
import { AppConfig } from "../../config/AppConfig.js"
import { SERVICE_VERSION, STORE_SCHEMA_VERSION } from "../../version.js"

export const HealthLive = HttpApiBuilder.group(MemoryApi, "health", (handlers) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const health = new Health({
      status: "ok",
      version: SERVICE_VERSION,
      schema_version: STORE_SCHEMA_VERSION,
      auth: config.authDisabled ? "disabled" : "enabled"
    })
    return handlers.handle("health", () => Effect.succeed(health))
  }))
