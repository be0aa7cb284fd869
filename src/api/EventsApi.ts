import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "./Authentication.js"
import { InvalidScopeWire, StoreUnavailableWire } from "./errors.js"
import { ScopeQuery } from "./MemoriesApi.js"
import { Text } from "./text.js"
import { pagingParams } from "./validation.js"

export class MemoryEvent extends Schema.Class<MemoryEvent>("MemoryEvent")({
  event_id: Schema.String,
  ts: Schema.String,
  user_id: Schema.String,
  agent_id: Schema.Null,
  run_id: Schema.Null,
  type: Schema.Literal("memory_add", "memory_supersede", "memory_delete"),
  memory_id: Schema.NullOr(Schema.String),
  session_id: Schema.NullOr(Schema.String),
  reason: Schema.NullOr(Schema.String),
  details: Schema.Record({ key: Schema.String, value: Schema.Unknown })
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
  .middleware(Authentication) {}
