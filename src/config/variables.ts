import { Config, Effect, Option, Redacted } from "effect"
import { configInvalid, type StartupError } from "../startup/StartupError.js"

/** A variable as set in the environment; empty strings count as unset. */
const raw = (name: string): Effect.Effect<Option.Option<string>, StartupError> =>
  Config.option(Config.string(name)).pipe(
    Effect.map(Option.filter((value) => value.trim() !== "")),
    Effect.mapError((error) => configInvalid(name, String(error)))
  )

export const stringVar = (name: string, fallback: string) =>
  raw(name).pipe(Effect.map(Option.getOrElse(() => fallback)))

export const optionalStringVar = (name: string) => raw(name)

export const secretVar = (name: string) => raw(name).pipe(Effect.map(Option.map(Redacted.make)))

const TRUE_WORDS = new Set(["true", "1", "yes", "on", "t", "y"])
const FALSE_WORDS = new Set(["false", "0", "no", "off", "f", "n"])

export const parseBool = (value: string): Option.Option<boolean> => {
  const word = value.trim().toLowerCase()
  if (TRUE_WORDS.has(word)) return Option.some(true)
  if (FALSE_WORDS.has(word)) return Option.some(false)
  return Option.none()
}

export const boolVar = (name: string, fallback: boolean) =>
  raw(name).pipe(
    Effect.flatMap(Option.match({
      onNone: () => Effect.succeed(fallback),
      onSome: (value) =>
        Option.match(parseBool(value), {
          onNone: () => Effect.fail(configInvalid(name, `expected a boolean (true/false), got ${JSON.stringify(value)}`)),
          onSome: Effect.succeed
        })
    }))
  )

export const intVar = (name: string, fallback: number, bounds: { readonly min: number; readonly max?: number }) =>
  raw(name).pipe(
    Effect.flatMap(Option.match({
      onNone: () => Effect.succeed(fallback),
      onSome: (value) => {
        const parsed = /^\s*-?\d+\s*$/.test(value) ? Number(value) : Number.NaN
        if (!Number.isSafeInteger(parsed)) {
          return Effect.fail(configInvalid(name, `expected an integer, got ${JSON.stringify(value)}`))
        }
        if (parsed < bounds.min || (bounds.max !== undefined && parsed > bounds.max)) {
          const range = bounds.max === undefined ? `>= ${bounds.min}` : `${bounds.min}..${bounds.max}`
          return Effect.fail(configInvalid(name, `expected an integer in ${range}, got ${parsed}`))
        }
        return Effect.succeed(parsed)
      }
    }))
  )

export const choiceVar = <const C extends string>(name: string, choices: ReadonlyArray<C>, fallback: C) =>
  raw(name).pipe(
    Effect.flatMap(Option.match({
      onNone: () => Effect.succeed(fallback),
      onSome: (value) => {
        const choice = choices.find((c) => c === value.trim().toLowerCase())
        return choice === undefined
          ? Effect.fail(configInvalid(name, `expected one of ${choices.join(", ")}, got ${JSON.stringify(value)}`, { allowed: choices }))
          : Effect.succeed(choice)
      }
    }))
  )

/** An exact origin is scheme://host[:port] with nothing after it, as a browser sends it. */
const isExactOrigin = (origin: string): boolean => {
  try {
    const url = new URL(origin)
    return (url.protocol === "http:" || url.protocol === "https:") && url.origin === origin
  } catch {
    return false
  }
}

export const originsVar = (name: string, authEnabled: boolean) =>
  raw(name).pipe(
    Effect.flatMap(Option.match({
      onNone: () => Effect.succeed<ReadonlyArray<string>>([]),
      onSome: (value) => {
        const parsed = Effect.try({ try: () => JSON.parse(value) as unknown, catch: () => configInvalid(name, "expected a JSON array of origins, e.g. [\"https://app.example.com\"]") })
        return Effect.flatMap(parsed, (origins) => {
          if (!Array.isArray(origins) || !origins.every((o): o is string => typeof o === "string")) {
            return Effect.fail(configInvalid(name, "expected a JSON array of origin strings"))
          }
          if (origins.includes("*")) {
            return authEnabled
              ? Effect.fail(configInvalid(name, "the wildcard origin is refused while authentication is on; list exact origins"))
              : Effect.succeed<ReadonlyArray<string>>(origins)
          }
          const inexact = origins.filter((o) => !isExactOrigin(o))
          return inexact.length > 0
            ? Effect.fail(configInvalid(name, `not exact origins (scheme://host[:port], no path): ${inexact.join(", ")}`, { invalid: inexact }))
            : Effect.succeed<ReadonlyArray<string>>(origins)
        })
      }
    }))
  )

/** Whether a text is a PostgreSQL connection URL with a host. */
export const isPostgresUrl = (text: string) =>
  URL.canParse(text) && ["postgres:", "postgresql:"].includes(new URL(text).protocol) && new URL(text).hostname !== ""

/**
 * A PostgreSQL connection URL, kept secret (it may hold a password): an invalid one is named
 * without its value.
 */
export const databaseUrlVar = (name: string) =>
  secretVar(name).pipe(
    Effect.flatMap(Option.match({
      onNone: () => Effect.succeed(Option.none<Redacted.Redacted>()),
      onSome: (url) => {
        return isPostgresUrl(Redacted.value(url))
          ? Effect.succeed(Option.some(url))
          : Effect.fail(configInvalid(name, "expected a PostgreSQL URL, postgres://user:password@host:port/database (the value is not shown)"))
      }
    }))
  )
