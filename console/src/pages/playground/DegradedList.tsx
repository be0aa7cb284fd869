import type { Degraded } from "../../lib/types.js"

/** Retrieval legs that could not run: the answer came from the others. */
export const DegradedList = ({ degraded }: { readonly degraded: ReadonlyArray<Degraded> }) =>
  degraded.length === 0
    ? <p class="muted">Every retrieval leg ran.</p>
    : (
      <div class="notice notice-warn">
        <p><strong>Degraded:</strong> {degraded.length === 1 ? "one leg" : `${degraded.length} legs`} could not run.</p>
        <ul>
          {degraded.map((entry, i) => (
            <li key={i}>
              <code>{entry.code}</code> {entry.message}
              {Object.keys(entry.details).length === 0 ? null : <span class="muted"> {JSON.stringify(entry.details)}</span>}
            </li>
          ))}
        </ul>
      </div>
    )
