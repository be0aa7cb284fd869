/** Previous and next over an offset/limit listing, and where in it the page is. */
export const Pager = (props: {
  readonly offset: number
  readonly limit: number
  readonly total: number
  readonly shown: number
  readonly onPage: (offset: number) => void
}) => {
  const first = props.shown === 0 ? 0 : props.offset + 1
  const last = props.offset + props.shown
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" class="button" disabled={props.offset === 0} onClick={() => props.onPage(Math.max(0, props.offset - props.limit))}>
        Previous
      </button>
      <span class="pager-position" aria-live="polite">{first}–{last} of {props.total}</span>
      <button type="button" class="button" disabled={last >= props.total} onClick={() => props.onPage(props.offset + props.limit)}>
        Next
      </button>
    </nav>
  )
}
