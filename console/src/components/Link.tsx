import type { ComponentChildren } from "preact"
import { href, navigate } from "../lib/router.js"

/**
 * A real link (it opens in a new tab, and is reachable by keyboard), followed inside the app
 * on a plain click.
 */
export const Link = (props: {
  readonly to: string
  readonly children: ComponentChildren
  readonly current?: boolean
  readonly class?: string
}) => (
  <a
    href={href(props.to)}
    class={props.class}
    aria-current={props.current === true ? "page" : undefined}
    onClick={(event) => {
      if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
      event.preventDefault()
      navigate(props.to)
    }}
  >
    {props.children}
  </a>
)
