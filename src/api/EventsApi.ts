import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ChangeEvent } from "../domain/webhooks.js"
import { Authentication } from "./Authentication.js"
import { ScopeKeysInQuery } from "./ScopeKeysInQuery.js"
import { InvalidScopeWire, StoreUnavailableWire } from "./errors.js"
import { ScopeQuery } from "./MemoriesApi.js"
import { Text } from "./text.js"
import { pagingParams } from "./validation.js"

/** The change view webhooks deliver, its type one of the three the log records. */
export class MemoryEvent extends Schema.Class<MemoryEvent>("MemoryEvent")({
  ...ChangeEvent.fields,
  type: Schema.Literal("memory_add", "memory_supersede", "memory_delete")
}) {}

export class EventList extends Schema.Class<EventList>("EventList")({
  events: Schema.Array(MemoryEvent),
  total: Schema.Int,
  offset: Schema.Int,
  limit: Schema.Int
}) {}

export const ListEventsQuery = Schema.Struct({ ...ScopeQuery, ...pagingParams(200), type: Schema.optional(Text) })

export class EventsApi extends HttpApiGroup.make("events")
  .add(
    HttpApiEndpoint.get("list", "/v1/events")
      .setUrlParams(ListEventsQuery)
      .addSuccess(EventList)
      .addError(InvalidScopeWire)
      .addError(StoreUnavailableWire)
      .annotate(OpenApi.Summary, "The audit log: every memory add, supersede and delete with its reason, newest first")
  )
  .middleware(ScopeKeysInQuery)
  .middleware(Authentication) {}
