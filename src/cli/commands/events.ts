import { Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { ListEventsQuery } from "../../api/EventsApi.js"
import { withClient } from "../client.js"
import { request } from "../decode.js"
import { optionalField, optionalInteger, userOptions } from "../options.js"
import { CONTENT_WIDTH, printAs, printPage, truncate } from "../output.js"

export const eventsCommand = Command.make(
  "events",
  {
    ...userOptions,
    type: Options.choice("type", ["memory_add", "memory_supersede", "memory_delete"]).pipe(Options.optional),
    limit: optionalInteger("limit", "Page size (1-200, default 50)"),
    offset: optionalInteger("offset", "Rows to skip")
  },
  ({ json, limit, offset, type, user, ...connection }) =>
    Effect.gen(function*() {
      const urlParams = yield* request(ListEventsQuery, {
        user_id: user,
        ...optionalField("type", type),
        ...optionalField("limit", Option.map(limit, String)),
        ...optionalField("offset", Option.map(offset, String))
      })
      const page = yield* withClient(connection, "events", (client) => client.list({ urlParams }))
      yield* printAs(json, page, (p) =>
        printPage(["TIME", "TYPE", "MEMORY", "REASON"], p.events.map((e) => [e.ts, e.type, e.memory_id, truncate(e.reason ?? "", CONTENT_WIDTH)]), {
          offset: p.offset,
          total: p.total,
          noun: "events"
        }))
    })
).pipe(Command.withDescription("The audit log of a user, newest first"))
