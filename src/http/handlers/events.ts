import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { MemoryApi } from "../../api/Api.js"
import { MemoryReads } from "../../services/memories/MemoryReads.js"

export const EventsLive = HttpApiBuilder.group(MemoryApi, "events", (handlers) =>
  Effect.map(MemoryReads, (reads) => handlers.handle("list", ({ urlParams }) => reads.events(urlParams))))
