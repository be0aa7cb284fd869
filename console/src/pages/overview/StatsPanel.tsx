import { EmptyState, Loaded } from "../../components/Loaded.js"
import { Facts } from "../../components/Facts.js"
import { Link } from "../../components/Link.js"
import { Panel } from "../../components/Panel.js"
import { formatBytes, formatCount } from "../../lib/format.js"
import type { StatsView } from "../../lib/types.js"
import type { AsyncState } from "../../lib/useAsync.js"

const counts = (byStatus: Readonly<Record<string, number>>) => {
  const entries = Object.entries(byStatus)
  return entries.length === 0 ? "none" : entries.map(([status, n]) => `${status}: ${formatCount(n)}`).join(", ")
}

export const StatsPanel = ({ state }: { readonly state: AsyncState<StatsView> }) => (
  <Panel title="Stats">
    <Loaded state={state} what="stats">
      {(stats) => (
        <>
          <Facts
            rows={[
              ["Users", formatCount(stats.users)],
              ["Stores on disk", formatBytes(stats.stores_bytes)],
              ["Open stores", formatCount(stats.open_stores)],
              ["Memories", counts(stats.memories_by_status)],
              ["Jobs", counts(stats.jobs_by_status)],
              ["Requests logged", formatCount(stats.requests_logged)],
              ["Control database", formatBytes(stats.control_db_bytes)]
            ]}
          />
          <h3>Largest stores</h3>
          {stats.largest_stores.length === 0
            ? <EmptyState>No user has a store yet.</EmptyState>
            : (
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">User</th>
                      <th scope="col" class="num">Size</th>
                    </tr>
                  </thead>
                  <tbody>
                    {stats.largest_stores.map((store) => (
                      <tr key={store.user_id}>
                        <td><Link to={`/memories?user=${encodeURIComponent(store.user_id)}`}>{store.user_id}</Link></td>
                        <td class="num">{formatBytes(store.bytes)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
        </>
      )}
    </Loaded>
  </Panel>
)
