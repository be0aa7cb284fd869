import { EmptyState, Loaded } from "../../components/Loaded.js"
import { Panel } from "../../components/Panel.js"
import { useApiKey } from "../../lib/apiKeyContext.js"
import { api } from "../../lib/client.js"
import { formatCount, formatMs } from "../../lib/format.js"
import { useLoad } from "../../lib/useAsync.js"

/** Per-route latency over each route's recent requests in this process (reset on restart). */
export const LatencyPanel = () => {
  const apiKey = useApiKey()
  const metrics = useLoad(() => api.metrics(), [apiKey])
  return (
    <Panel title="Latency by route" actions={<button type="button" class="button" onClick={() => void metrics.reload()}>Refresh</button>}>
      <Loaded state={metrics.state} what="latency">
        {(data) => {
          const routes = Object.entries(data.routes).sort(([a], [b]) => a.localeCompare(b))
          if (routes.length === 0) return <EmptyState>No request has been measured since the server started.</EmptyState>
          return (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Route</th>
                    <th scope="col" class="num">Count</th>
                    <th scope="col" class="num">Min</th>
                    <th scope="col" class="num">p50</th>
                    <th scope="col" class="num">p95</th>
                    <th scope="col" class="num">p99</th>
                    <th scope="col" class="num">Max</th>
                  </tr>
                </thead>
                <tbody>
                  {routes.map(([route, latency]) => (
                    <tr key={route}>
                      <td><code>{route}</code></td>
                      <td class="num">{formatCount(latency.count)}</td>
                      <td class="num">{formatMs(latency.min)}</td>
                      <td class="num">{formatMs(latency.p50)}</td>
                      <td class="num">{formatMs(latency.p95)}</td>
                      <td class="num">{formatMs(latency.p99)}</td>
                      <td class="num">{formatMs(latency.max)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }}
      </Loaded>
    </Panel>
  )
}
