import { useId } from "preact/hooks"

/** A labelled input; the label is tied to it, so clicking or a screen reader finds it. */
export const InputField = (props: {
  readonly label: string
  readonly value: string
  readonly onValue: (value: string) => void
  readonly type?: "text" | "number"
  readonly min?: number
  readonly max?: number
  readonly required?: boolean
  readonly placeholder?: string
  readonly autoComplete?: string
  readonly hint?: string
}) => {
  const id = useId()
  const hintId = `${id}-hint`
  // Preact types each input type's attributes apart, so the two kinds are rendered apart.
  const shared = {
    id,
    value: props.value,
    required: props.required,
    placeholder: props.placeholder,
    autocomplete: props.autoComplete ?? "off",
    "aria-describedby": props.hint === undefined ? undefined : hintId,
    onInput: (event: { readonly currentTarget: HTMLInputElement }) => props.onValue(event.currentTarget.value)
  }
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.type === "number"
        ? <input type="number" min={props.min} max={props.max} {...shared} />
        : <input type="text" spellcheck={false} {...shared} />}
      {props.hint === undefined ? null : <small id={hintId} class="hint">{props.hint}</small>}
    </div>
  )
}

/** A labelled choice among a few fixed values. */
export const SelectField = (props: {
  readonly label: string
  readonly value: string
  readonly onValue: (value: string) => void
  readonly options: ReadonlyArray<readonly [value: string, label: string]>
}) => {
  const id = useId()
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select id={id} value={props.value} onChange={(event) => props.onValue(event.currentTarget.value)}>
        {props.options.map(([value, label]) => <option key={value} value={value}>{label}</option>)}
      </select>
    </div>
  )
}
