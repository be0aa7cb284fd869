/** How numbers and absent values read on screen. */

export const NONE = "—"

export const orNone = (value: string | number | null | undefined) =>
  value === null || value === undefined || value === "" ? NONE : String(value)

export const formatCount = (value: number) => value.toLocaleString("en-US")

export const formatBytes = (bytes: number) => {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"]
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`
}

export const formatMs = (ms: number) => `${ms < 10 ? ms.toFixed(2) : ms.toFixed(1)} ms`

export const formatScore = (score: number | null) => (score === null ? NONE : score.toFixed(4))

export const setOrNot = (set: boolean) => (set ? "set" : "not set")

/** Control-plane times are UTC ISO-8601 with microseconds: to the second is enough to read. */
export const shortUtc = (iso: string) => iso.replace("T", " ").replace(/\.\d+/, "").replace(/(\+00:00|Z)$/, " UTC")
