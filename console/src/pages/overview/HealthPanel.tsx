import { StatusBadge } from "../../components/Badge.js"
import { Facts } from "../../components/Facts.js"
import { Loaded } from "../../components/Loaded.js"
import { Panel } from "../../components/Panel.js"
import type { Health } from "../../lib/types.js"
import type { AsyncState } from "../../lib/useAsync.js"

export const HealthPanel = ({ state }: { readonly state: AsyncState<Health> }) => (
  <Panel title="Health">
    <Loaded state={state} what="health">
      {(health) => (
        <Facts
          rows={[
            ["Status", <StatusBadge status={health.status} />],
            ["Version", health.version],
            ["Store schema", health.schema_version],
            ["Authentication", health.auth]
          ]}
        />
      )}
    </Loaded>
  </Panel>
)
