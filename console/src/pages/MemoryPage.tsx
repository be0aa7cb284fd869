import { StatusBadge } from "../components/Badge.js"
import { Facts } from "../components/Facts.js"
import { Link } from "../components/Link.js"
import { EmptyState, Loaded } from "../components/Loaded.js"
import { PageTitle } from "../components/PageTitle.js"
import { Panel } from "../components/Panel.js"
import { useApiKey } from "../lib/apiKeyContext.js"
import { api } from "../lib/client.js"
import { orNone } from "../lib/format.js"
import { useAction, useLoad } from "../lib/useAsync.js"
import { EventsPanel } from "./memories/EventsPanel.js"
import { memoriesPath } from "./memories/paths.js"
import { ProvenancePanel } from "./memories/ProvenancePanel.js"
import { RemovalPanel } from "./memories/RemovalPanel.js"
import { VersionsPanel } from "./memories/VersionsPanel.js"

/** How far the graph is walked for the version chain and provenance. */
const WALK = { depth: 3, limit: 100 } as const

/** One memory: what it says, its versions, where it came from, its audit events; archive or purge it. */
export const MemoryPage = ({ id, params }: { readonly id: string; readonly params: URLSearchParams }) => {
  const apiKey = useApiKey()
  const user = params.get("user") ?? ""
  const memory = useLoad(() => api.getMemory(id, user), [apiKey, id, user])
  const graph = useLoad(() => api.explore({ user_id: user, start_id: id, ...WALK }), [apiKey, id, user])
  const config = useLoad(() => api.config(), [apiKey])
  const removal = useAction((purge: boolean) => api.deleteMemory(id, user, purge))
  const removed = removal.state.status === "ok" ? 1 : 0

  if (user === "") {
    return (
      <>
        <PageTitle title="Memory" intro="A memory belongs to a user: open it from a user's list." />
        <EmptyState><Link to="/memories">Choose a user</Link></EmptyState>
      </>
    )
  }
  return (
    <>
      <PageTitle
        title="Memory"
        intro={`Memory ${id} of ${user}.`}
        actions={<Link class="button" to={memoriesPath(user)}>All memories of {user}</Link>}
      />
      <div class="columns">
        <div class="column">
          <Panel title="Content">
            <Loaded state={memory.state} what="the memory">
              {(found) => (
                <>
                  <p class="memory-content">{found.content}</p>
                  <Facts
                    rows={[
                      ["Status", <StatusBadge status={found.status} />],
                      ["Kind", orNone(found.kind)],
                      ["Occurred", orNone(found.occurred_at)],
                      ["Valid from", orNone(found.valid_from)],
                      ["Valid until", orNone(found.valid_until)],
                      ["Confidence", found.confidence === null ? orNone(null) : found.confidence.toFixed(2)],
                      ["Scope", [found.agent_id, found.run_id, found.project_id].every((v) => v === null)
                        ? "unscoped"
                        : `agent ${orNone(found.agent_id)}, run ${orNone(found.run_id)}, project ${orNone(found.project_id)}`],
                      ["Id", <code>{found.id}</code>]
                    ]}
                  />
                  <details>
                    <summary>Metadata</summary>
                    <pre>{JSON.stringify(found.metadata, null, 2)}</pre>
                  </details>
                </>
              )}
            </Loaded>
          </Panel>
          <RemovalPanel
            user={user}
            purgeAllowed={config.state.status === "ok" ? config.state.data.allow_purge : undefined}
            removal={removal.state}
            onRemove={(purge) => void removal.run(purge)}
          />
          <VersionsPanel id={id} user={user} graph={graph.state} />
        </div>
        <div class="column">
          {memory.state.status === "ok" ? <ProvenancePanel memory={memory.state.data} graph={graph.state} /> : null}
          <EventsPanel id={id} user={user} refreshKey={removed} />
        </div>
      </div>
    </>
  )
}
