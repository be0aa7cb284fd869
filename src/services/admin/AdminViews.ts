import { Effect, Option, Redacted } from "effect"
import { ConfigView, StatsView } from "../../api/AdminApi.js"
import { AppConfig } from "../../config/AppConfig.js"
import { Embedder } from "../../llm/Embedder.js"
import { shownWebhookUrl } from "../../config/webhooks.js"
import { ControlStore } from "../../storage/ControlStore.js"
import { UserStore } from "../../storage/UserStore.js"
import { ApiKeys } from "./ApiKeys.js"
import { Jobs } from "../jobs/Jobs.js"
import { RequestLog } from "./RequestLog.js"
import { WebhookCounters } from "../webhooks/WebhookCounters.js"
import { span } from "../../util/span.js"

/** Read-only operator views over configuration and the control plane. */
export class AdminViews extends Effect.Service<AdminViews>()("Memory/AdminViews", {
  effect: Effect.gen(function*() {
    const config = yield* AppConfig
    const keys = yield* ApiKeys
    const controlStore = yield* ControlStore
    const jobs = yield* Jobs
    const requestLog = yield* RequestLog
    const userStore = yield* UserStore
    const webhookCounters = yield* WebhookCounters
    const embedder = yield* Embedder

    /** Every secret appears only as whether it is set. */
    const configView = Effect.gen(function*() {
      const contention = yield* controlStore.lockContention
      return new ConfigView({
        data_root: config.dataRoot,
        storage_backend: Option.isSome(config.database) ? "postgres" : "sqlite",
        database_pool_max: Option.getOrNull(Option.map(config.database, (database) => database.poolMax)),
        store_cache_max: config.storeCacheMax,
        auth: config.authDisabled ? "disabled" : "enabled",
        api_key_set: Option.isSome(config.apiKey),
        named_keys_active: yield* keys.countActive,
        llm_provider: config.llm.provider,
        llm_model: Option.getOrNull(config.llm.model),
        llm_api_key_set: Option.isSome(config.llm.apiKey),
        llm_base_url: Option.getOrNull(config.llm.baseUrl),
        // The embedder in use, which defaults from the LLM provider: none without one.
        embed_provider: Option.getOrNull(Option.orElse(Option.map(embedder.active, (active) => active.provider), () => Option.as(embedder.local, "local"))),
        embed_model: Option.getOrNull(Option.orElse(Option.map(embedder.active, (active) => active.model), () => Option.map(embedder.local, (local) => local.model))),
        embed_dimensions: Option.getOrNull(config.embed.dimensions),
        embed_state: Option.getOrNull(Option.map(embedder.local, (local) => local.state)),
        embed_unavailable: Option.isSome(embedder.active) ? null : embedder.reason,
        cors_origins: config.corsOrigins,
        allow_purge: config.allowPurge,
        max_body_bytes: config.maxBodyBytes,
        request_log_max: config.requestLogMax,
        job_retention_max: config.jobRetentionMax,
        job_lease_seconds: config.jobLeaseMs / 1000,
        webhook_url: Option.getOrNull(Option.map(config.webhook, ({ url }) => shownWebhookUrl(Redacted.value(url)))),
        webhook_secret_set: Option.isSome(config.webhook),
        webhook_retention_max: Option.getOrNull(Option.map(config.webhook, ({ retentionMax }) => retentionMax)),
        workers: 1,
        lock_contention_count: contention.count,
        lock_contention_last: contention.last
      })
    }).pipe(span("AdminViews.configView"))

    /** What this process delivers, beside whether webhooks are on for the database it writes to. */
    const webhookState = Effect.gen(function*() {
      const counts = yield* webhookCounters.snapshot
      const databaseEnabled = yield* controlStore.webhooksOn
      return { ...counts, database_enabled: databaseEnabled, mismatch: counts.enabled !== databaseEnabled }
    })

    /** Every user with data, the size of their data and the control plane's, and what the control plane counts. */
    const stats = Effect.gen(function*() {
      const { memoriesByStatus, users } = yield* userStore.inventory
      return new StatsView({
        users: users.length,
        stores_bytes: users.reduce((sum, user) => sum + user.bytes, 0),
        largest_stores: [...users].sort((a, b) => b.bytes - a.bytes || a.user_id.localeCompare(b.user_id)).slice(0, 10),
        jobs_by_status: yield* jobs.countByStatus,
        requests_logged: (yield* requestLog.page(0, 1)).total,
        control_db_bytes: yield* controlStore.sizeBytes,
        memories_by_status: memoriesByStatus,
        open_stores: yield* userStore.openStores,
        webhooks: yield* webhookState
      })
    }).pipe(span("AdminViews.stats"))

    return { configView, stats } as const
  })
}) {}
