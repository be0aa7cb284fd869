import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ChangeEvent } from "../domain/webhooks.js"
import { Authentication } from "./Authentication.js"
import { ScopeKeysInQuery } from "./ScopeKeysInQuery.js"
import { InvalidScopeWire, StoreUnavailableWire } from "./errors.js"
import { limitParam, offsetParam, PageFields } from "./fields.js"
import { ScopeQuery } from "./MemoriesApi.js"
import { Text } from "./text.js"

const EventType = Schema.Literal("memory_add", "memory_supersede", "memory_delete").annotations({
  description: "What changed: memory_add (a memory written, or an import), memory_supersede (a memory replaced by a newer version, or merged) or memory_delete (archived or purged)."
})

/** The change view webhooks deliver, its type one of the three the log records. */
export class MemoryEvent extends Schema.Class<MemoryEvent>("MemoryEvent")({
  ...ChangeEvent.fields,
  type: EventType
}, { description: "One change to a user's memory, with its reason." }) {}

export class EventList extends Schema.Class<EventList>("EventList")({
  events: Schema.Array(MemoryEvent).annotations({ description: "The page's events, newest first." }),
  ...PageFields
}, { description: "A page of the audit log." }) {}

export const ListEventsQuery = Schema.Struct({
  ...ScopeQuery,
  offset: offsetParam,
  limit: limitParam(200, 50),
  type: Schema.optional(Text.annotations({
    description: "Only events of this type: memory_add, memory_supersede or memory_delete; any other value matches nothing. Absent: every type."
  }))
})

export class EventsApi extends HttpApiGroup.make("events")
  .annotate(OpenApi.Description, "The audit log: why each memory was added, superseded or deleted, by whom and in which request.")
  .add(
    HttpApiEndpoint.get("list", "/v1/events")
      .setUrlParams(ListEventsQuery)
      .addSuccess(EventList)
      .addError(InvalidScopeWire)
      .addError(StoreUnavailableWire)
      .annotate(OpenApi.Summary, "The audit log: every memory add, supersede and delete with its reason, newest first")
      .annotate(
        OpenApi.Description,
        "A user's audit log, newest first: every memory_add, memory_supersede and memory_delete with its reason; details names the actor (bootstrap, anonymous, mcp, or key:<name>) and the request id. Scope keys narrow by the scope each event carries (that of the write that caused it)."
      )
  )
  .middleware(ScopeKeysInQuery)
  .middleware(Authentication) {}
