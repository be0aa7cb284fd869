import { StatusBadge } from "../../components/Badge.js"
import { Link } from "../../components/Link.js"
import { EmptyState, Loaded } from "../../components/Loaded.js"
import { Panel } from "../../components/Panel.js"
import { orNone } from "../../lib/format.js"
import type { ExploreResult } from "../../lib/types.js"
import type { AsyncState } from "../../lib/useAsync.js"
import { memoryPath } from "./paths.js"
import { versionChain } from "./versionChain.js"

/** Every version of the memory, newest first, each with the span of time it held. */
export const VersionsPanel = (props: { readonly id: string; readonly user: string; readonly graph: AsyncState<ExploreResult> }) => (
  <Panel title="Versions">
    <Loaded state={props.graph} what="versions">
      {(graph) => {
        const chain = versionChain(props.id, graph)
        if (chain.length === 1) return <EmptyState>This memory has a single version: it was never corrected.</EmptyState>
        return (
          <ol class="versions">
            {chain.map(({ id, card }) => (
              <li key={id} class={id === props.id ? "version version-shown" : "version"}>
                <div class="version-head">
                  {id === props.id ? <strong>This version</strong> : <Link to={memoryPath(id, props.user)}>Open version</Link>}
                  {card === undefined ? null : <StatusBadge status={card.status} />}
                </div>
                <p>{card?.predicate_raw ?? id}</p>
                <p class="muted">
                  valid {orNone(card?.valid_from)} → {card?.valid_until ?? "now"} · <code>{id}</code>
                </p>
              </li>
            ))}
          </ol>
        )
      }}
    </Loaded>
  </Panel>
)
