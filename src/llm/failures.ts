import {
  type ProviderError,
  ProviderRateLimited,
  ProviderTimeout,
  ProviderUnavailable
} from "../api/errors.js"
import type { LlmProviderName } from "../config/AppConfig.js"

// Transports describe provider failures with these; the retry policy reads them.

/** Which provider and model a call went to: named in every error, never the key. */
export interface Origin {
  readonly provider: LlmProviderName
  readonly model: string
}

const SAFE_CODE = /^[A-Za-z0-9_.-]{1,64}$/

/** Retry-After as delay-seconds (fractions accepted); HTTP dates are left to the backoff. */
const retryAfterSeconds = (header: string | null | undefined) => {
  const seconds = header === null || header === undefined || header.trim() === "" ? Number.NaN : Number(header)
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined
}

/**
 * A provider's HTTP error status as our error: the status and at most the provider's error type,
 * never its message (some echo part of the key). 429 is rate limiting; 408 and 5xx are transient.
 */
export const statusFailure = (
  origin: Origin,
  status: number,
  reply: { readonly code?: string | undefined; readonly retryAfter?: string | null | undefined } = {}
): ProviderError => {
  const code = reply.code !== undefined && SAFE_CODE.test(reply.code) ? reply.code : undefined
  const wait = retryAfterSeconds(reply.retryAfter)
  const details = {
    ...origin,
    status,
    ...(code === undefined ? {} : { provider_code: code }),
    ...(wait === undefined ? {} : { retry_after_seconds: wait })
  }
  const said = `status ${status}${code === undefined ? "" : ` (${code})`}`
  // OpenAI also answers 429 when the account's quota is spent, which no wait mends.
  const quotaSpent = code === "insufficient_quota"
  return status === 429 && !quotaSpent
    ? new ProviderRateLimited({ message: `${origin.provider} rate-limited the request: ${said}`, details: { ...details, retryable: true } })
    : new ProviderUnavailable({ message: `${origin.provider} answered with ${said}`, details: { ...details, retryable: status === 408 || status >= 500 } })
}

export const unreachable = (origin: Origin) =>
  new ProviderUnavailable({ message: `${origin.provider} could not be reached`, details: { ...origin, retryable: true } })

/** A success status with a body that is not the provider's reply format (a proxy's page, say). */
export const unreadable = (origin: Origin) =>
  new ProviderUnavailable({ message: `${origin.provider} sent a reply in an unexpected format`, details: { ...origin, retryable: true } })

export const refused = (origin: Origin, why: string) =>
  new ProviderUnavailable({ message: `${origin.provider}: ${why}`, details: { ...origin, retryable: false } })

export const timedOut = (origin: Origin, timeoutMs: number) =>
  new ProviderTimeout({ message: `${origin.provider} did not answer within ${timeoutMs} ms`, details: { ...origin, timeout_ms: timeoutMs } })
