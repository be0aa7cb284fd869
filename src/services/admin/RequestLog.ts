import { Clock, Effect } from "effect"
import { AppConfig } from "../../config/AppConfig.js"
import { ControlStore } from "../../storage/ControlStore.js"
import type { RequestLogRow } from "../../domain/records.js"
import { utcTimestamp } from "../../util/timestamps.js"

/** Successful requests to these paths are not worth a row: liveness probes and static pages. */
const QUIET = (path: string) => path === "/health" || path === "/favicon.ico" || path === "/console" || path.startsWith("/console/")

/**
 * The rolling request log in the control plane: every failed request and every successful one
 * but liveness probes, capped at SERVICE_REQUEST_LOG_MAX rows in the insert's own transaction
 * (0 writes nothing). A request's row is written before its response leaves (http/requestContext.ts),
 * so a client that has its answer finds its request listed, after every request answered before it.
 * Never the body, headers or query string.
 */
export class RequestLog extends Effect.Service<RequestLog>()("Memory/RequestLog", {
  effect: Effect.gen(function*() {
    const { requestLogMax } = yield* AppConfig
    const queries = (yield* ControlStore).requestLog

    const record = (entry: Omit<RequestLogRow, "created_at"> & { readonly path: string }) =>
      Effect.gen(function*() {
        if (requestLogMax === 0 || (entry.status_code < 400 && QUIET(entry.path))) return
        const { path: _path, ...row } = entry
        yield* queries.append({ ...row, created_at: utcTimestamp(yield* Clock.currentTimeMillis) }, requestLogMax)
      }).pipe(
        // Written just before the response leaves: a row the control plane cannot take now is only noted, and the request answered all the same.
        Effect.catchTag("StoreUnavailable", (error) => Effect.logWarning(`request log row not kept: ${error.message}`))
      )

    return { record, page: queries.page } as const
  })
}) {}
