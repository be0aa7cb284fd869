import { EmptyState, Loaded } from "../../components/Loaded.js"
import { Panel } from "../../components/Panel.js"
import { useApiKey } from "../../lib/apiKeyContext.js"
import { api } from "../../lib/client.js"
import { formatCount } from "../../lib/format.js"
import type { TokenCounts, UsageReport, UsageSummary } from "../../lib/types.js"
import { useLoad } from "../../lib/useAsync.js"

/** `total` is `{}` until the first LLM call. */
const hasUsage = (total: UsageReport["total"]): total is UsageSummary => "calls" in total

const TokenCells = ({ counts }: { readonly counts: TokenCounts }) => (
  <>
    <td class="num">{formatCount(counts.calls)}</td>
    <td class="num">{formatCount(counts.prompt_tokens)}</td>
    <td class="num">{formatCount(counts.completion_tokens)}</td>
    <td class="num">{formatCount(counts.total_tokens)}</td>
    <td class="num">{formatCount(counts.cached_input_tokens)}</td>
  </>
)

/** LLM calls and tokens since the server started, by operation. */
export const UsagePanel = () => {
  const apiKey = useApiKey()
  const usage = useLoad(() => api.usage(), [apiKey])
  return (
    <Panel title="Token usage" actions={<button type="button" class="button" onClick={() => void usage.reload()}>Refresh</button>}>
      <Loaded state={usage.state} what="token usage">
        {(report) => {
          const operations = Object.entries(report.by_operation)
          const total = report.total
          if (operations.length === 0 || !hasUsage(total)) return <EmptyState>No LLM call since the server started.</EmptyState>
          return (
            <>
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Operation</th>
                      <th scope="col" class="num">Calls</th>
                      <th scope="col" class="num">Prompt</th>
                      <th scope="col" class="num">Completion</th>
                      <th scope="col" class="num">Total</th>
                      <th scope="col" class="num">Cached input</th>
                    </tr>
                  </thead>
                  <tbody>
                    {operations.map(([operation, summary]) => (
                      <tr key={operation}>
                        <th scope="row">{operation}</th>
                        <TokenCells counts={summary} />
                      </tr>
                    ))}
                  </tbody>
                  <tfoot>
                    <tr>
                      <th scope="row">All (LLM calls)</th>
                      <TokenCells counts={total} />
                    </tr>
                  </tfoot>
                </table>
              </div>
              <p class="muted">Models: {total.served_models.length === 0 ? "not reported" : total.served_models.join(", ")}</p>
            </>
          )
        }}
      </Loaded>
    </Panel>
  )
}
