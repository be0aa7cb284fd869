import { Badge } from "../../components/Badge.js"
import { EmptyState, Loaded } from "../../components/Loaded.js"
import { Panel } from "../../components/Panel.js"
import { UtcTime } from "../../components/UtcTime.js"
import { useApiKey } from "../../lib/apiKeyContext.js"
import { api } from "../../lib/client.js"
import { orNone } from "../../lib/format.js"
import type { MemoryEvent } from "../../lib/types.js"
import { useLoad } from "../../lib/useAsync.js"

/** How far back the audit log is read; it has no filter by memory, so it is filtered here. */
const EVENTS_READ = 200

const TYPE_LABELS = { memory_add: "added", memory_supersede: "superseded", memory_delete: "deleted" } as const

/** A correction's event names the version it closed, and the new one in its details. */
const namesMemory = (id: string) => (event: MemoryEvent) => event.memory_id === id || event.details.new_memory_id === id

/** The audit events that name this memory, newest first. */
export const EventsPanel = (props: { readonly id: string; readonly user: string; readonly refreshKey: number }) => {
  const apiKey = useApiKey()
  const { state } = useLoad(() => api.events({ user_id: props.user, limit: EVENTS_READ }), [apiKey, props.id, props.user, props.refreshKey])
  return (
    <Panel title="Events">
      <Loaded state={state} what="events">
        {(list) => {
          const events = list.events.filter(namesMemory(props.id))
          if (events.length === 0) {
            return <EmptyState>No event names this memory among the user's latest {EVENTS_READ}.</EmptyState>
          }
          return (
            <ul class="events">
              {events.map((event) => (
                <li key={event.event_id}>
                  <Badge tone={event.type === "memory_delete" ? "bad" : "neutral"}>{TYPE_LABELS[event.type]}</Badge>{" "}
                  <UtcTime value={event.ts} />
                  <p>{orNone(event.reason)}</p>
                </li>
              ))}
            </ul>
          )
        }}
      </Loaded>
    </Panel>
  )
}
