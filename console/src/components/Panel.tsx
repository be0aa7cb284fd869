import type { ComponentChildren } from "preact"
import { useId } from "preact/hooks"

/** A titled section of a page, with optional controls beside its title. */
export const Panel = (props: {
  readonly title: string
  readonly actions?: ComponentChildren
  readonly children: ComponentChildren
}) => {
  const id = useId()
  return (
    <section class="panel" aria-labelledby={id}>
      <header class="panel-header">
        <h2 id={id}>{props.title}</h2>
        {props.actions === undefined ? null : <div class="panel-actions">{props.actions}</div>}
      </header>
      {props.children}
    </section>
  )
}
