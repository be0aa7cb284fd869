import { shortUtc } from "../lib/format.js"

/** A service timestamp, to the second; the exact value is kept for machines and on hover. */
export const UtcTime = ({ value }: { readonly value: string }) => (
  <time dateTime={value} title={value}>{shortUtc(value)}</time>
)
