import { Clock, Effect } from "effect"

/** UTC ISO-8601 with microseconds and an explicit offset: `2026-11-22T14:44:51.553000+00:00`. */
export const utcTimestamp = (millis: number): string => {
  const iso = new Date(millis).toISOString()
  return `${iso.slice(0, 23)}000+00:00`
}

export const nowTimestamp: Effect.Effect<string> = Effect.map(Clock.currentTimeMillis, utcTimestamp)
