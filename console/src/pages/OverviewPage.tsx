import { PageTitle } from "../components/PageTitle.js"
import { useApiKey } from "../lib/apiKeyContext.js"
import { api } from "../lib/client.js"
import { useLoad } from "../lib/useAsync.js"
import { ConfigPanel, LockContentionWarning } from "./overview/ConfigPanel.js"
import { HealthPanel } from "./overview/HealthPanel.js"
import { StatsPanel } from "./overview/StatsPanel.js"

export const OverviewPage = () => {
  const apiKey = useApiKey()
  const health = useLoad(() => api.health(), [])
  const config = useLoad(() => api.config(), [apiKey])
  const stats = useLoad(() => api.stats(), [apiKey])
  const refresh = () => {
    void health.reload()
    void config.reload()
    void stats.reload()
  }
  return (
    <>
      <PageTitle
        title="Overview"
        intro="Whether the service is up, how it is configured, and how much it holds."
        actions={<button type="button" class="button" onClick={refresh}>Refresh</button>}
      />
      {config.state.status === "ok" ? <LockContentionWarning config={config.state.data} /> : null}
      <div class="columns">
        <div class="column">
          <HealthPanel state={health.state} />
          <StatsPanel state={stats.state} />
        </div>
        <div class="column">
          <ConfigPanel state={config.state} />
        </div>
      </div>
    </>
  )
}
