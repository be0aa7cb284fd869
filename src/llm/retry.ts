import { Duration, Effect, Schedule } from "effect"
import type { ProviderError } from "../api/errors.js"
import { type Origin, timedOut } from "./failures.js"

export interface CallPolicy {
  /** Each attempt's own limit. */
  readonly timeoutMs: number
  /** Further attempts after a transient failure. */
  readonly maxRetries: number
}

const BACKOFF_START = Duration.millis(200)
const BACKOFF_CAP = Duration.seconds(5)
const RETRY_AFTER_CAP_MS = 10_000

/** Unavailability is transient only when marked so; any other failure unless marked otherwise. */
const isTransient = (error: ProviderError) =>
  error._tag === "ProviderUnavailable" ? error.details.retryable === true : error.details.retryable !== false

const providerDelay = (error: ProviderError) => {
  const seconds = error.details.retry_after_seconds
  return typeof seconds === "number" ? Duration.millis(Math.min(seconds * 1000, RETRY_AFTER_CAP_MS)) : undefined
}

/** Exponential backoff with jitter, capped; the provider's Retry-After wins when it sends one. */
export const retrySchedule = (maxRetries: number) =>
  Schedule.exponential(BACKOFF_START, 2).pipe(
    Schedule.jittered,
    Schedule.modifyDelay((_, delay) => Duration.min(delay, BACKOFF_CAP)),
    Schedule.intersect(Schedule.recurs(maxRetries)),
    Schedule.intersect(Schedule.identity<ProviderError>()),
    Schedule.modifyDelay(([, error], delay) => providerDelay(error) ?? delay),
    Schedule.whileInput(isTransient)
  )

/** Each attempt bounded by the timeout; transient failures tried again within the budget. */
export const withPolicy = <A>(origin: Origin, policy: CallPolicy, attempt: Effect.Effect<A, ProviderError>) =>
  attempt.pipe(
    Effect.timeoutFail({ duration: Duration.millis(policy.timeoutMs), onTimeout: () => timedOut(origin, policy.timeoutMs) }),
    Effect.retry(retrySchedule(policy.maxRetries))
  )
