import type { ComponentChildren } from "preact"

export type Fact = readonly [label: string, value: ComponentChildren]

/** Label and value pairs, as a definition list. */
export const Facts = ({ rows }: { readonly rows: ReadonlyArray<Fact> }) => (
  <dl class="facts">
    {rows.map(([label, value]) => (
      <div class="fact" key={label}>
        <dt>{label}</dt>
        <dd>{value}</dd>
      </div>
    ))}
  </dl>
)
