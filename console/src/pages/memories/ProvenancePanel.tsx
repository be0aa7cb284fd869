import { Facts } from "../../components/Facts.js"
import { EmptyState, Loaded } from "../../components/Loaded.js"
import { Panel } from "../../components/Panel.js"
import { orNone } from "../../lib/format.js"
import type { ExploreResult, Memory } from "../../lib/types.js"
import type { AsyncState } from "../../lib/useAsync.js"

const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined)

/** Where the memory came from: its session and turn, the words it was taken from, and who it names. */
export const ProvenancePanel = (props: { readonly memory: Memory; readonly graph: AsyncState<ExploreResult> }) => (
  <Panel title="Provenance">
    <Loaded state={props.graph} what="provenance">
      {(graph) => {
        const card = graph.nodes.find((node) => node.fact_id === props.memory.id)
        if (card === undefined) return <EmptyState>No source is recorded for this memory.</EmptyState>
        const roles = Object.entries(card.entity_roles)
        const support = text(props.memory.metadata.support_text)
        return (
          <>
            <Facts
              rows={[
                ["Session", orNone(card.session_id)],
                ["Turn", orNone(card.turn_id)],
                ["Source spans", card.source_span_ids.length === 0 ? orNone(null) : card.source_span_ids.join(", ")],
                ["Time from", orNone(text(props.memory.metadata.time_source))],
                ["Entities", roles.length === 0 ? "none" : roles.map(([role, names]) => `${role}: ${names.join(", ")}`).join("; ")]
              ]}
            />
            <h3>Said in the conversation</h3>
            <blockquote class="source-text">{card.content}</blockquote>
            {support === undefined || support === card.content ? null : (
              <>
                <h3>Supporting text</h3>
                <blockquote class="source-text">{support}</blockquote>
              </>
            )}
          </>
        )
      }}
    </Loaded>
  </Panel>
)
