import { Link } from "../../components/Link.js"
import { EmptyState, Loaded } from "../../components/Loaded.js"
import { Panel } from "../../components/Panel.js"
import { formatMs, formatScore, orNone } from "../../lib/format.js"
import type { SearchResponse } from "../../lib/types.js"
import type { AsyncState } from "../../lib/useAsync.js"
import { memoryPath } from "../memories/paths.js"
import { DegradedList } from "./DegradedList.js"
import type { Timed } from "./timed.js"

const factId = (metadata: Record<string, unknown>) => (typeof metadata.fact_id === "string" ? metadata.fact_id : undefined)

const kindOf = (metadata: Record<string, unknown>) => (typeof metadata.kind === "string" ? metadata.kind : null)

/** Ranked hits: memories link to their page; raw turns and spans are shown as they are. */
export const SearchResults = (props: { readonly state: AsyncState<Timed<SearchResponse>>; readonly user: string }) => (
  <Panel title="Search hits">
    <Loaded state={props.state} what="search hits" idle={<EmptyState>Run a query to see its hits.</EmptyState>}>
      {({ data, ms }) => (
        <>
          <p class="latency">Latency <strong>{formatMs(ms)}</strong> · {data.hits.length} {data.hits.length === 1 ? "hit" : "hits"}</p>
          <DegradedList degraded={data.degraded} />
          {data.hits.length === 0
            ? <EmptyState>Nothing matches “{data.query}”.</EmptyState>
            : (
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col" class="num">#</th>
                      <th scope="col">Content</th>
                      <th scope="col" class="num">Score</th>
                      <th scope="col">Kind</th>
                      <th scope="col">Occurred</th>
                      <th scope="col">Session</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.hits.map((hit, i) => {
                      const memoryId = factId(hit.metadata)
                      return (
                        <tr key={hit.id}>
                          <td class="num">{i + 1}</td>
                          <td class="wide">
                            {memoryId === undefined ? hit.content : <Link to={memoryPath(memoryId, props.user)}>{hit.content}</Link>}
                            <br />
                            <code class="muted">{hit.id}</code>
                          </td>
                          <td class="num">{formatScore(hit.score)}</td>
                          <td>{orNone(kindOf(hit.metadata))}</td>
                          <td>{orNone(hit.occurred_at)}</td>
                          <td>{orNone(hit.session_id)}</td>
                        </tr>
                      )
                    })}
                  </tbody>
                </table>
              </div>
            )}
        </>
      )}
    </Loaded>
  </Panel>
)
