import { Either } from "effect"

/**
 * When a conversation happened, as a naive host-local time kept at the precision it was given:
 * `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM` or `YYYY-MM-DDTHH:MM:SS`.
 */
export type LocalTime = string

const pad = (n: number, width = 2) => String(n).padStart(width, "0")

/** Now as a naive local time at second precision, comparable with stored local times. */
export const localNow = (date: Date): LocalTime => localSeconds(date)

const localSeconds = (date: Date): LocalTime =>
  `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"]

const validDate = (year: number, month: number, day: number) => {
  const date = new Date(year, month - 1, day)
  return date.getFullYear() === year && date.getMonth() === month - 1 && date.getDate() === day
}

const validClock = (hour: number, minute: number, second = 0) => hour < 24 && minute < 60 && second < 60

const ISO = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?)?)?$/
const SLASHED = /^(\d{4})\/(\d{1,2})\/(\d{1,2})(?:\s*\([A-Za-z]+\))?(?:\s+(\d{1,2}):(\d{2}))?$/
const SPOKEN = /^(\d{1,2}):(\d{2})\s*([ap])\.?m\.?\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})$/i

const fromIso = (text: string): LocalTime | undefined => {
  const m = ISO.exec(text)
  if (m === null) return undefined
  const [, y, mo, d, h, mi, s, zone] = m
  const year = Number(y), month = Number(mo ?? 1), day = Number(d ?? 1)
  if (!validDate(year, month, day)) return undefined
  if (h === undefined) return mo === undefined ? y : d === undefined ? `${y}-${mo}` : `${y}-${mo}-${d}`
  if (!validClock(Number(h), Number(mi), Number(s ?? 0))) return undefined
  if (zone !== undefined) {
    const instant = new Date(text.replace(" ", "T"))
    return Number.isNaN(instant.getTime()) ? undefined : localSeconds(instant)
  }
  return s === undefined ? `${y}-${mo}-${d}T${h}:${mi}` : `${y}-${mo}-${d}T${h}:${mi}:${s}`
}

const fromSlashed = (text: string): LocalTime | undefined => {
  const m = SLASHED.exec(text)
  if (m === null) return undefined
  const [, y, mo, d, h, mi] = m
  const year = Number(y), month = Number(mo), day = Number(d)
  if (!validDate(year, month, day)) return undefined
  const date = `${y}-${pad(month)}-${pad(day)}`
  if (h === undefined) return date
  return validClock(Number(h), Number(mi)) ? `${date}T${pad(Number(h))}:${mi}` : undefined
}

/** The form conversation logs often carry, e.g. `1:56 pm on 8 May, 2023`. */
const fromSpoken = (text: string): LocalTime | undefined => {
  const m = SPOKEN.exec(text)
  if (m === null) return undefined
  const [, h, mi, meridiem, d, monthName, y] = m
  const month = MONTHS.findIndex((name) => name.startsWith(monthName!.toLowerCase()) && monthName!.length >= 3) + 1
  const year = Number(y), day = Number(d), hour12 = Number(h)
  if (month === 0 || !validDate(year, month, day) || hour12 < 1 || hour12 > 12 || Number(mi) > 59) return undefined
  const hour = (hour12 % 12) + (meridiem!.toLowerCase() === "p" ? 12 : 0)
  return `${y}-${pad(month)}-${pad(day)}T${pad(hour)}:${mi}`
}

/** Epoch seconds (or milliseconds, when the number is too large to be seconds). */
const fromEpoch = (value: number): LocalTime | undefined => {
  if (!Number.isFinite(value)) return undefined
  const millis = Math.abs(value) >= 1e11 ? value : value * 1000
  const date = new Date(millis)
  return Number.isNaN(date.getTime()) ? undefined : localSeconds(date)
}

/**
 * Parses `session_time` as sent: ISO-8601 (full or partial, with or without an offset), epoch
 * seconds, `YYYY/MM/DD (Weekday) HH:MM`, or `H:MM am on D Month, YYYY`. Absent means now.
 * Left carries the input that could not be read.
 */
export const parseSessionTime = (value: string | number | null | undefined, now: Date): Either.Either<LocalTime, string | number> => {
  if (value === null || value === undefined) return Either.right(localSeconds(now))
  if (typeof value === "number") return Either.fromNullable(fromEpoch(value), () => value)
  const text = value.trim()
  const numeric = /^-?\d+(\.\d+)?$/.test(text) && text.length > 4 ? fromEpoch(Number(text)) : undefined
  return Either.fromNullable(numeric ?? fromIso(text) ?? fromSlashed(text) ?? fromSpoken(text), () => value)
}
