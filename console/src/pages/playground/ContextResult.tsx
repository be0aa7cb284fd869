import { EmptyState, Loaded } from "../../components/Loaded.js"
import { Panel } from "../../components/Panel.js"
import { formatMs } from "../../lib/format.js"
import type { ContextResponse } from "../../lib/types.js"
import type { AsyncState } from "../../lib/useAsync.js"
import { DegradedList } from "./DegradedList.js"
import type { Timed } from "./timed.js"

/** The prompt-ready block as an agent would receive it, and the evidence each line cites. */
export const ContextResult = ({ state }: { readonly state: AsyncState<Timed<ContextResponse>> }) => (
  <Panel title="Context">
    <Loaded state={state} what="context" idle={<EmptyState>Run a query to see the context built for it.</EmptyState>}>
      {({ data, ms }) => (
        <>
          <p class="latency">
            Latency <strong>{formatMs(ms)}</strong> · {data.evidence.length} evidence {data.evidence.length === 1 ? "card" : "cards"} rendered
          </p>
          <DegradedList degraded={data.degraded} />
          {data.text === ""
            ? <EmptyState>No evidence fits this query.</EmptyState>
            : <pre class="context-text" tabIndex={0} aria-label="Rendered context">{data.text}</pre>}
          <h3>Citations</h3>
          {data.citations.length === 0
            ? <EmptyState>No citations.</EmptyState>
            : (
              <ol class="citations">
                {data.citations.map((citation) => <li key={citation}><code>{citation}</code></li>)}
              </ol>
            )}
        </>
      )}
    </Loaded>
  </Panel>
)
