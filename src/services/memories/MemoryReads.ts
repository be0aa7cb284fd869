import { Clock, Effect, Option } from "effect"
import { MemoryEvent, EventList } from "../../api/EventsApi.js"
import { MemoryList } from "../../api/MemoriesApi.js"
import { localNow } from "../../domain/sessionTime.js"
import { inScope } from "../../domain/records.js"
import { UserStore } from "../../storage/UserStore.js"
import { type ScopeParams, scopeFilter, toMemory } from "./memoryRecords.js"
import { changeEvent } from "../../domain/webhooks.js"
import { span } from "../../util/span.js"

const EVENT_TYPES = new Set(["memory_add", "memory_supersede", "memory_delete"])

/** Reads of memories and their audit log; a read never creates a store. */
export class MemoryReads extends Effect.Service<MemoryReads>()("Memory/MemoryReads", {
  effect: Effect.gen(function*() {
    const store = yield* UserStore

    const list = (params: ScopeParams & { readonly offset: number; readonly limit: number }) =>
      Effect.gen(function*() {
        const now = localNow(new Date(yield* Clock.currentTimeMillis))
        const page = yield* store.currentFacts(params.user_id, { scope: scopeFilter(params), now, offset: params.offset, limit: params.limit })
        return new MemoryList({
          memories: page.rows.map((row) => toMemory(params.user_id, row)),
          total: page.total,
          offset: params.offset,
          limit: params.limit
        })
      }).pipe(span("MemoryReads.list"))

    /** A memory by id; none when absent, archived, or stamped outside the requested scope. */
    const get = (memoryId: string, params: ScopeParams) =>
      store.fact(params.user_id, memoryId).pipe(
        Effect.map(Option.filter((row) => row.status !== "archived" && inScope(row, scopeFilter(params)))),
        Effect.map(Option.map((row) => toMemory(params.user_id, row))),
        span("MemoryReads.get")
      )

    /** An unknown type filter matches nothing (never everything); scope keys narrow as they narrow memories. */
    const events = (params: ScopeParams & { readonly offset: number; readonly limit: number; readonly type?: string | undefined }) =>
      Effect.gen(function*() {
        const type = params.type ?? null
        const page = type !== null && !EVENT_TYPES.has(type)
          ? { rows: [], total: 0 }
          : yield* store.events(params.user_id, { type, scope: scopeFilter(params), offset: params.offset, limit: params.limit })
        return new EventList({
          events: page.rows.map((row) => new MemoryEvent({ ...changeEvent(params.user_id, row), type: row.type as MemoryEvent["type"] })),
          total: page.total,
          offset: params.offset,
          limit: params.limit
        })
      }).pipe(span("MemoryReads.events"))

    return { list, get, events } as const
  })
}) {}
