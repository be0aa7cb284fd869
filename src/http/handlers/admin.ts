import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { ApiKeyList, RequestLogEntry, RequestLogPage } from "../../api/AdminApi.js"
import { MemoryApi } from "../../api/Api.js"
import { AdminViews } from "../../services/admin/AdminViews.js"
import { ApiKeys } from "../../services/admin/ApiKeys.js"
import { RequestLog } from "../../services/admin/RequestLog.js"
import { orNotFound } from "./orNotFound.js"

export const AdminLive = HttpApiBuilder.group(MemoryApi, "admin", (handlers) =>
  Effect.gen(function*() {
    const views = yield* AdminViews
    const keys = yield* ApiKeys
    const requestLog = yield* RequestLog
    return handlers
      .handle("config", () => views.configView)
      .handle("listKeys", ({ urlParams }) =>
        Effect.map(keys.list(urlParams.include_revoked), (list) => new ApiKeyList({ keys: list, total: list.length })))
      .handle("createKey", ({ payload }) => keys.mint(payload.name))
      .handle("requests", ({ urlParams }) =>
        Effect.map(requestLog.page(urlParams.offset, urlParams.limit), ({ rows, total }) =>
          new RequestLogPage({ requests: rows.map((row) => new RequestLogEntry(row)), total, offset: urlParams.offset, limit: urlParams.limit })))
      .handle("stats", () => views.stats)
      .handle("revokeKey", ({ path }) =>
        keys.revoke(path.key_id).pipe(orNotFound(`api key '${path.key_id}' not found`)))
  }))
