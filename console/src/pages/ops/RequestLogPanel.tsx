import { useState } from "preact/hooks"
import { InputField, SelectField } from "../../components/InputField.js"
import { EmptyState, Loaded } from "../../components/Loaded.js"
import { Pager } from "../../components/Pager.js"
import { Panel } from "../../components/Panel.js"
import { UtcTime } from "../../components/UtcTime.js"
import { useApiKey } from "../../lib/apiKeyContext.js"
import { api } from "../../lib/client.js"
import { formatMs, orNone } from "../../lib/format.js"
import type { RequestLogEntry } from "../../lib/types.js"
import { useLoad } from "../../lib/useAsync.js"

const PAGE_SIZE = 100

interface Filters {
  readonly method: string
  readonly status: string
  readonly route: string
  readonly keyName: string
}

const NO_FILTERS: Filters = { method: "", status: "", route: "", keyName: "" }

const STATUS_CLASSES: ReadonlyArray<readonly [string, string]> = [["", "Any status"], ["2", "2xx"], ["3", "3xx"], ["4", "4xx"], ["5", "5xx"]]
const METHODS: ReadonlyArray<readonly [string, string]> = [["", "Any method"], ...["GET", "POST", "PATCH", "DELETE", "OPTIONS"].map((m) => [m, m] as const)]

/** The log has no filters of its own: they narrow the page of rows read here. */
const matches = (filters: Filters) => (entry: RequestLogEntry) =>
  (filters.method === "" || entry.method === filters.method) &&
  (filters.status === "" || String(entry.status_code).startsWith(filters.status)) &&
  (filters.route === "" || entry.route.toLowerCase().includes(filters.route.toLowerCase())) &&
  (filters.keyName === "" || (entry.key_name ?? "").toLowerCase().includes(filters.keyName.toLowerCase()))

export const RequestLogPanel = () => {
  const apiKey = useApiKey()
  const [offset, setOffset] = useState(0)
  const [filters, setFilters] = useState(NO_FILTERS)
  const page = useLoad(() => api.requests({ limit: PAGE_SIZE, offset }), [apiKey, offset])
  const set = (field: keyof Filters) => (value: string) => setFilters({ ...filters, [field]: value })
  return (
    <Panel title="Request log" actions={<button type="button" class="button" onClick={() => void page.reload()}>Refresh</button>}>
      <div class="toolbar" role="group" aria-label="Filters">
        <SelectField label="Method" value={filters.method} onValue={set("method")} options={METHODS} />
        <SelectField label="Status" value={filters.status} onValue={set("status")} options={STATUS_CLASSES} />
        <InputField label="Route contains" value={filters.route} onValue={set("route")} />
        <InputField label="Key name contains" value={filters.keyName} onValue={set("keyName")} />
      </div>
      <Loaded state={page.state} what="the request log">
        {(log) => {
          const rows = log.requests.filter(matches(filters))
          return (
            <>
              <p class="muted">Newest first; filters apply to the {log.requests.length} rows of this page.</p>
              {rows.length === 0
                ? <EmptyState>{log.requests.length === 0 ? "No request has been logged yet." : "No request on this page matches the filters."}</EmptyState>
                : (
                  <div class="table-wrap">
                    <table>
                      <thead>
                        <tr>
                          <th scope="col">Time</th>
                          <th scope="col">Method</th>
                          <th scope="col">Route</th>
                          <th scope="col" class="num">Status</th>
                          <th scope="col" class="num">Latency</th>
                          <th scope="col">Key</th>
                          <th scope="col">Request id</th>
                        </tr>
                      </thead>
                      <tbody>
                        {rows.map((entry) => (
                          <tr key={`${entry.request_id}-${entry.created_at}`}>
                            <td><UtcTime value={entry.created_at} /></td>
                            <td>{entry.method}</td>
                            <td><code>{entry.route}</code></td>
                            <td class={entry.status_code >= 400 ? "num status-bad" : "num"}>{entry.status_code}</td>
                            <td class="num">{formatMs(entry.latency_ms)}</td>
                            <td>{orNone(entry.key_name)}</td>
                            <td><code>{entry.request_id}</code></td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                )}
              <Pager offset={offset} limit={PAGE_SIZE} total={log.total} shown={log.requests.length} onPage={setOffset} />
            </>
          )
        }}
      </Loaded>
    </Panel>
  )
}
