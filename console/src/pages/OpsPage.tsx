import { PageTitle } from "../components/PageTitle.js"
import { ApiKeysPanel } from "./ops/ApiKeysPanel.js"
import { EmbedPanel } from "./ops/EmbedPanel.js"
import { LatencyPanel } from "./ops/LatencyPanel.js"
import { RequestLogPanel } from "./ops/RequestLogPanel.js"
import { UsagePanel } from "./ops/UsagePanel.js"

export const OpsPage = () => (
  <>
    <PageTitle title="Ops" intro="Named keys, the request log, latency by route, LLM token usage and embedding maintenance." />
    <ApiKeysPanel />
    <RequestLogPanel />
    <LatencyPanel />
    <UsagePanel />
    <EmbedPanel />
  </>
)
