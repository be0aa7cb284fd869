import type { ComponentChildren } from "preact"
import type { AsyncState } from "../lib/useAsync.js"
import { ErrorNotice } from "./ErrorNotice.js"

/** A loading line that screen readers announce. */
export const Loading = ({ what }: { readonly what: string }) => (
  <p class="loading" role="status" aria-live="polite">Loading {what}…</p>
)

export const EmptyState = ({ children }: { readonly children: ComponentChildren }) => <p class="empty">{children}</p>

/** The faces of a call: not made yet, loading, failed, or its data rendered by `children`. */
export const Loaded = <T,>(props: {
  readonly state: AsyncState<T>
  readonly what: string
  /** What to show before the call is first made. */
  readonly idle?: ComponentChildren
  readonly children: (data: T) => ComponentChildren
}) => {
  switch (props.state.status) {
    case "idle":
      return <>{props.idle ?? null}</>
    case "loading":
      return <Loading what={props.what} />
    case "error":
      return <ErrorNotice error={props.state.error} />
    case "ok":
      return <>{props.children(props.state.data)}</>
  }
}
