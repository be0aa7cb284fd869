import type { ApiError } from "../lib/api.js"

/** A failed call: its code (what to look up) and message, and its details when there are any. */
export const ErrorNotice = ({ error }: { readonly error: ApiError }) => {
  const hasDetails = Object.keys(error.details).length > 0
  return (
    <div class="notice notice-error" role="alert">
      <p>
        <code class="error-code">{error.code}</code> <span class="error-message">{error.message}</span>
        {error.status > 0 ? <span class="muted"> (HTTP {error.status})</span> : null}
      </p>
      {hasDetails
        ? (
          <details>
            <summary>Details</summary>
            <pre>{JSON.stringify(error.details, null, 2)}</pre>
          </details>
        )
        : null}
    </div>
  )
}
