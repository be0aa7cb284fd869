import { Clock, Effect, Option } from "effect"
import { MemoryEvent, EventList } from "../../api/EventsApi.js"
import { MemoryList } from "../../api/MemoriesApi.js"
import { localNow } from "../../domain/sessionTime.js"
import { listEvents } from "../../storage/sqlite/user/events.js"
import { FactQueries, type FactRow } from "../../storage/sqlite/user/facts.js"
import { inScope, type ScopeParams, scopeFilter, toMemory } from "./memoryRecords.js"
import { StoreCache } from "../../storage/sqlite/StoreCache.js"

const EVENT_TYPES = new Set(["memory_add", "memory_supersede", "memory_delete"])

/** Reads of memories and their audit log; a read never creates a store. */
export class MemoryReads extends Effect.Service<MemoryReads>()("Memory/MemoryReads", {
  effect: Effect.gen(function*() {
    const stores = yield* StoreCache

    const list = (params: ScopeParams & { readonly offset: number; readonly limit: number }) =>
      Effect.gen(function*() {
        const now = localNow(new Date(yield* Clock.currentTimeMillis))
        const page = yield* stores.read(
          params.user_id,
          ({ sql }) => FactQueries(sql).listCurrent(scopeFilter(params), now, params.offset, params.limit),
          () => ({ rows: [], total: 0 })
        )
        return new MemoryList({
          memories: page.rows.map((row) => toMemory(params.user_id, row)),
          total: page.total,
          offset: params.offset,
          limit: params.limit
        })
      }).pipe(Effect.catchTag("SqlError", Effect.die), Effect.withSpan("MemoryReads.list"))

    /** A memory by id; none when absent, archived, or stamped outside the requested scope. */
    const get = (memoryId: string, params: ScopeParams) =>
      stores.read(
        params.user_id,
        ({ sql }) => Effect.map(FactQueries(sql).find(memoryId), Option.fromNullable),
        () => Option.none<FactRow>()
      ).pipe(
        Effect.map(Option.filter((row) => row.status !== "archived" && inScope(row, scopeFilter(params)))),
        Effect.map(Option.map((row) => toMemory(params.user_id, row))),
        Effect.catchTag("SqlError", Effect.die),
        Effect.withSpan("MemoryReads.get")
      )

    /** An unknown type filter matches nothing (never everything). */
    const events = (params: ScopeParams & { readonly offset: number; readonly limit: number; readonly type?: string | undefined }) =>
      Effect.gen(function*() {
        const type = params.type ?? null
        const page = type !== null && !EVENT_TYPES.has(type)
          ? { rows: [], total: 0 }
          : yield* stores.read(params.user_id, ({ sql }) => listEvents(sql, type, params.offset, params.limit), () => ({ rows: [], total: 0 }))
        return new EventList({
          events: page.rows.map((row) =>
            new MemoryEvent({
              event_id: row.event_id,
              ts: row.ts,
              user_id: params.user_id,
              agent_id: null,
              run_id: null,
              type: row.type as MemoryEvent["type"],
              memory_id: row.memory_id,
              session_id: row.session_id,
              reason: row.reason,
              details: JSON.parse(row.details) as Record<string, unknown>
            })),
          total: page.total,
          offset: params.offset,
          limit: params.limit
        })
      }).pipe(Effect.catchTag("SqlError", Effect.die), Effect.withSpan("MemoryReads.events"))

    return { list, get, events } as const
  })
}) {}
