import type { ComponentChildren } from "preact"

/** The page's one h1, what the page is for, and page-wide controls. */
export const PageTitle = (props: { readonly title: string; readonly intro: string; readonly actions?: ComponentChildren }) => (
  <div class="page-title">
    <div>
      <h1>{props.title}</h1>
      <p class="intro">{props.intro}</p>
    </div>
    {props.actions === undefined ? null : <div class="page-actions">{props.actions}</div>}
  </div>
)
