import { Clock, Effect, FiberSet } from "effect"
import { AppConfig } from "../../config/AppConfig.js"
import { ControlStore } from "../../storage/ControlStore.js"
import type { RequestLogRow } from "../../domain/records.js"
import { utcTimestamp } from "../../util/timestamps.js"

/** Successful requests to these paths are not worth a row: liveness probes and static pages. */
const QUIET = (path: string) => path === "/health" || path === "/console" || path.startsWith("/console/")

/**
 * The rolling request log in the control plane: every failed request and every successful one
 * but liveness probes and console pages, capped at SERVICE_REQUEST_LOG_MAX rows (0 writes
 * nothing). Never the body, headers or query string.
 *
 * A row is kept in memory when its response leaves (http/requestContext.ts) and written with the
 * others of the next SERVICE_REQUEST_LOG_FLUSH_MS (200 ms by default) in one transaction, off the responses' path. Reading
 * the log here writes what is waiting first, so a client finds its answered requests listed on
 * the replica that served them at once, and on the others within the interval (plus the write).
 * Shutdown writes what is left once the server has stopped taking requests; a crash of the
 * process loses the rows of the last interval at most. While the control plane refuses
 * writes, rows wait, at most SERVICE_REQUEST_LOG_MAX of them (older ones would be dropped by the
 * cap anyway), and go with the next write.
 */
export class RequestLog extends Effect.Service<RequestLog>()("Memory/RequestLog", {
  scoped: Effect.gen(function*() {
    const { requestLogFlushMs, requestLogMax } = yield* AppConfig
    const queries = (yield* ControlStore).requestLog
    const pending: Array<RequestLogRow> = []
    const writing = yield* Effect.makeSemaphore(1)
    // The timer's fiber belongs to the service, not to the request that armed it.
    const runInBackground = yield* FiberSet.makeRuntime<never, void, never>()
    let armed = false

    /** Writes every waiting row, in order; one write at a time, so rows land in the order served. */
    const flush: Effect.Effect<void> = writing.withPermits(1)(Effect.suspend(() => {
      if (pending.length === 0) return Effect.void
      const rows = pending.splice(0, pending.length)
      return queries.append(rows, requestLogMax).pipe(
        Effect.catchTag("StoreUnavailable", (error) =>
          Effect.zipRight(
            Effect.sync(() => {
              pending.unshift(...rows)
              pending.splice(0, Math.max(0, pending.length - requestLogMax))
              arm()
            }),
            Effect.logWarning(`request log rows not written yet (${pending.length} waiting): ${error.message}`)
          ))
      )
    }))

    /** A write of what waits one interval from now, unless one is due already. */
    const arm = () => {
      if (armed) return
      armed = true
      runInBackground(Effect.zipRight(
        Effect.sleep(requestLogFlushMs),
        Effect.suspend(() => {
          armed = false
          return flush
        })
      ))
    }

    // After the server: its layer needs this one, so this finalizer runs once no request is left.
    yield* Effect.addFinalizer(() => flush)

    const record = (entry: Omit<RequestLogRow, "created_at"> & { readonly path: string }) =>
      Effect.gen(function*() {
        if (requestLogMax === 0 || (entry.status_code < 400 && QUIET(entry.path))) return
        const { path: _path, ...row } = entry
        pending.push({ ...row, created_at: utcTimestamp(yield* Clock.currentTimeMillis) })
        arm()
      })

    return { record, page: (offset: number, limit: number) => Effect.zipRight(flush, queries.page(offset, limit)), flush } as const
  })
}) {}
