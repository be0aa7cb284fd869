import { Effect, Option } from "effect"
import { ConfigView } from "../api/AdminApi.js"
import { AppConfig } from "../config/AppConfig.js"
import { ControlDb } from "../store/control/ControlDb.js"
import { readLockContention } from "../store/control/lockContention.js"
import { ApiKeys } from "./ApiKeys.js"

/** Read-only operator views over configuration and the control plane. */
export class AdminViews extends Effect.Service<AdminViews>()("Memory/AdminViews", {
  effect: Effect.gen(function*() {
    const config = yield* AppConfig
    const keys = yield* ApiKeys
    const controlDb = yield* ControlDb

    /** Every secret appears only as whether it is set. */
    const configView = Effect.gen(function*() {
      const contention = yield* Effect.provideService(readLockContention, ControlDb, controlDb)
      return new ConfigView({
        data_root: config.dataRoot,
        store_cache_max: config.storeCacheMax,
        auth: config.authDisabled ? "disabled" : "enabled",
        api_key_set: Option.isSome(config.apiKey),
        named_keys_active: yield* keys.countActive,
        llm_provider: config.llm.provider,
        llm_model: Option.getOrNull(config.llm.model),
        llm_api_key_set: Option.isSome(config.llm.apiKey),
        llm_base_url: Option.getOrNull(config.llm.baseUrl),
        embed_provider: Option.getOrNull(config.embed.provider),
        embed_model: Option.getOrNull(config.embed.model),
        embed_dimensions: Option.getOrNull(config.embed.dimensions),
        cors_origins: config.corsOrigins,
        allow_purge: config.allowPurge,
        max_body_bytes: config.maxBodyBytes,
        request_log_max: config.requestLogMax,
        job_retention_max: config.jobRetentionMax,
        workers: 1,
        lock_contention_count: contention.count,
        lock_contention_last: contention.last
      })
    }).pipe(Effect.withSpan("AdminViews.configView"))

    return { configView } as const
  })
}) {}
