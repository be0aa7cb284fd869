import { Effect, Option } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { ConfigView, StatsView } from "../../api/AdminApi.js"
import { AppConfig } from "../../config/AppConfig.js"
import { ControlDb, controlDbPath } from "../../storage/sqlite/control/ControlDb.js"
import { readLockContention } from "../../storage/sqlite/control/lockContention.js"
import { factStatusCounts } from "../../storage/sqlite/user/statusCounts.js"
import { ApiKeys } from "./ApiKeys.js"
import { Jobs } from "../jobs/Jobs.js"
import { RequestLog } from "./RequestLog.js"
import { STORE_FILE, StoreCache } from "../../storage/sqlite/StoreCache.js"

/** Read-only operator views over configuration and the control plane. */
export class AdminViews extends Effect.Service<AdminViews>()("Memory/AdminViews", {
  effect: Effect.gen(function*() {
    const config = yield* AppConfig
    const keys = yield* ApiKeys
    const controlDb = yield* ControlDb
    const jobs = yield* Jobs
    const requestLog = yield* RequestLog
    const storeCache = yield* StoreCache

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

    const fileBytes = (path: string) => (NodeFs.existsSync(path) ? NodeFs.statSync(path).size : 0)
    const sqliteBytes = (file: string) => fileBytes(file) + fileBytes(`${file}-wal`) + fileBytes(`${file}-shm`)

    /** Walks the data root on each call: every user directory, its store's size and facts. */
    const stats = Effect.gen(function*() {
      const users = yield* Effect.sync(() =>
        NodeFs.readdirSync(config.dataRoot, { withFileTypes: true })
          .filter((entry) => entry.isDirectory() && !entry.name.startsWith("."))
          .map((entry) => entry.name)
          .sort())
      const stores = users.map((userId) => {
        const directory = NodePath.join(config.dataRoot, userId)
        const bytes = NodeFs.readdirSync(directory).reduce((sum, name) => sum + fileBytes(NodePath.join(directory, name)), 0)
        return { user_id: userId, bytes, file: NodePath.join(directory, STORE_FILE) }
      })
      const memoriesByStatus: Record<string, number> = {}
      for (const store of stores) {
        if (!NodeFs.existsSync(store.file)) continue
        for (const [status, n] of Object.entries(factStatusCounts(store.file))) memoriesByStatus[status] = (memoriesByStatus[status] ?? 0) + n
      }
      return new StatsView({
        users: users.length,
        stores_bytes: stores.reduce((sum, store) => sum + store.bytes, 0),
        largest_stores: [...stores].sort((a, b) => b.bytes - a.bytes || a.user_id.localeCompare(b.user_id)).slice(0, 10)
          .map(({ bytes, user_id }) => ({ user_id, bytes })),
        jobs_by_status: yield* jobs.countByStatus,
        requests_logged: (yield* requestLog.page(0, 1)).total,
        control_db_bytes: sqliteBytes(controlDbPath(config.dataRoot)),
        memories_by_status: memoriesByStatus,
        open_stores: yield* storeCache.openCount
      })
    }).pipe(Effect.withSpan("AdminViews.stats"))

    return { configView, stats } as const
  })
}) {}
