import { useState } from "preact/hooks"

/**
 * A button for an action that cannot be undone: the first press asks, a second press on
 * "Confirm …" does it. No modal dialog, so it stays in the keyboard's tab order.
 */
export const ConfirmButton = (props: {
  readonly label: string
  readonly onConfirm: () => void
  readonly disabled?: boolean
  readonly danger?: boolean
}) => {
  const [asking, setAsking] = useState(false)
  const tone = props.danger === true ? "button button-danger" : "button"
  if (!asking) {
    return (
      <button type="button" class={tone} disabled={props.disabled} onClick={() => setAsking(true)}>
        {props.label}
      </button>
    )
  }
  return (
    <span class="confirm">
      <button
        type="button"
        class="button button-danger"
        disabled={props.disabled}
        onClick={() => {
          setAsking(false)
          props.onConfirm()
        }}
      >
        Confirm {props.label.toLowerCase()}
      </button>
      <button type="button" class="button button-quiet" onClick={() => setAsking(false)}>Cancel</button>
    </span>
  )
}
