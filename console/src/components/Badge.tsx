import type { ComponentChildren } from "preact"

export type Tone = "good" | "bad" | "warn" | "neutral"

export const Badge = ({ tone, children }: { readonly tone: Tone; readonly children: ComponentChildren }) => (
  <span class={`badge badge-${tone}`}>{children}</span>
)

const STATUS_TONES: Record<string, Tone> = {
  ok: "good",
  active: "good",
  succeeded: "good",
  current: "good",
  failed: "bad",
  archived: "bad",
  revoked: "bad",
  pending: "warn",
  running: "warn",
  superseded: "warn"
}

/** A status word coloured by what it means; the word itself carries the meaning. */
export const StatusBadge = ({ status }: { readonly status: string | null }) => (
  <Badge tone={status === null ? "neutral" : STATUS_TONES[status] ?? "neutral"}>{status ?? "unknown"}</Badge>
)
