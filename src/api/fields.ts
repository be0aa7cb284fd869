import { Schema } from "effect"
import { boundedText, Text } from "./text.js"
import { queryInt } from "./validation.js"

/**
 * Fields many schemas of the contract share, each described once for the OpenAPI document:
 * the scope, paging, times and the free-form objects.
 */

const USER_ID =
  "The user whose memory this is: 1–128 characters (else 422 validation_error) of A–Z a–z 0–9 . _ -, starting with a letter or digit (else 400 invalid_scope). Each user has a store of their own, and users are kept apart by this id, not by API keys."

/** The user a request acts on. */
export const UserId = boundedText(1, 128).annotations({ description: USER_ID })

/** The user a response is about, as the request named them. */
export const UserIdEcho = Schema.String.annotations({ description: "The user, as the request named them." })

const scopeKeyDescription = (key: string) =>
  `Scope key: narrows to what is stamped with this ${key} or with none ("" means unset), so a memory stamped with another is 404, left out and never changed; a write stamps it on what it stores. Routes acting on a whole user or on entity profiles refuse it (501 not_implemented). See docs/scope.md.`

export const MOST_SCOPE_KEY_UNITS = 128

const scopeKeyValue = Text.pipe(Schema.maxLength(MOST_SCOPE_KEY_UNITS))

/** A scope key in a JSON body: absent or null leaves the request unnarrowed. */
export const scopeKey = (key: string) => Schema.optional(Schema.NullOr(scopeKeyValue).annotations({ description: scopeKeyDescription(key) }))

/** A scope key in a query string. */
export const scopeKeyParam = (key: string) => Schema.optional(scopeKeyValue.annotations({ description: scopeKeyDescription(key) }))

/** A scope key a stored row carries. */
export const scopeStamp = (key: string) =>
  Schema.NullOr(Schema.String).annotations({
    description: `The ${key} this was stamped with when written; null when unstamped (then every ${key} sees it).`
  })

/** How many items a listing skips. */
export const offsetParam = Schema.optionalWith(queryInt({ min: 0 }), { default: () => 0 }).annotations({
  description: "How many items to skip before the page starts (default 0)."
})

/** How many items a listing returns at most. */
export const limitParam = (max: number, fallback: number) =>
  Schema.optionalWith(queryInt({ min: 1, max }), { default: () => fallback }).annotations({
    description: `How many items the page holds at most: 1–${max}, default ${fallback}.`
  })

/** The paging a listing answers with: the total and its request's offset and limit, echoed. */
export const PageFields = {
  total: Schema.Int.annotations({ description: "How many items match in all, across every page." }),
  offset: Schema.Int.annotations({ description: "The request's offset, echoed." }),
  limit: Schema.Int.annotations({ description: "The request's limit, echoed." })
}

const LOCAL_TIME =
  "naive local time at the precision the store knows it: YYYY, YYYY-MM, YYYY-MM-DD, YYYY-MM-DDTHH:MM or YYYY-MM-DDTHH:MM:SS"

/** A time of the memory domain (when something happened or held), at its own precision. */
export const localTime = (what: string) =>
  Schema.NullOr(Schema.String).annotations({ description: `${what}, as ${LOCAL_TIME}; null when unknown.` })

const UTC_TIME = "UTC ISO-8601 with microseconds and an explicit offset, e.g. 2026-11-22T14:44:51.553000+00:00"

/** A time the service recorded (jobs, keys, the request log, events). */
export const utcTime = (what: string) => Schema.String.annotations({ description: `${what}, ${UTC_TIME}.` })

/** The same, null until it happens. */
export const utcTimeOrNull = (what: string, whenNull: string) =>
  Schema.NullOr(Schema.String).annotations({ description: `${what}, ${UTC_TIME}; null ${whenNull}.` })

/** A free-form JSON object. */
export const JsonObject = (description: string) =>
  Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({ description })

/** A memory's id as the service gives it. */
export const MemoryIdField = (what: string) => Schema.String.annotations({ description: `${what} (fact_<uuid>).` })

const ASYNC_MODE = "true answers 202 at once with a job to poll at GET /v1/jobs/{job_id}; false waits and answers 200 with the result."

/** The switch between answering at once with a job and waiting for the result. */
export const asyncMode = (fallback: boolean) =>
  Schema.optionalWith(Schema.Boolean.annotations({ description: `${ASYNC_MODE} Default ${fallback}.` }), { default: () => fallback })

/** The maintenance routes' switch, named `async` as the reference service names it; `async_mode` is read too. */
export const MaintenanceAsync = {
  async: Schema.optional(Schema.Boolean.annotations({ description: `${ASYNC_MODE} Default false; async_mode is read as well.` })),
  async_mode: Schema.optional(Schema.Boolean.annotations({ description: "The same as async (either may be sent; async wins when both are)." }))
}

/** A soft deadline for a maintenance run. */
export const maxProcessingTime = (between: string) =>
  Schema.optionalWith(
    Schema.Number.pipe(Schema.between(0, 3600)).annotations({
      description: `A soft deadline in seconds (0–3600, default 0 = none): the run stops ${between} once it has passed, after at least one, with cancelled true; what is left waits for the next run.`
    }),
    { default: () => 0 }
  )
