import { Effect, Redacted } from "effect"
import { shownWebhookUrl, type WebhookSettings } from "../../config/webhooks.js"
import { type AttemptOutcome, type ChangeEvent, deliveryBody, outcomeOfStatus, signature, SIGNATURE_HEADER } from "../../domain/webhooks.js"

/** How one attempt ended: its outcome, and what the receiver answered or why there was no answer. */
export interface Attempt {
  readonly outcome: AttemptOutcome
  readonly detail: string
}

/**
 * Posts one change to the receiver, signed, within the timeout. Never fails: a timeout or a
 * connection error is an attempt to make again. Redirects are not followed (a signed body is
 * for the configured URL only).
 */
export const postChange = (settings: WebhookSettings, event: ChangeEvent, attempt: number): Effect.Effect<Attempt> => {
  const body = deliveryBody(event, attempt)
  const { authorization, url } = withoutCredentials(Redacted.value(settings.url))
  return Effect.tryPromise(async (interrupted) => {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "User-Agent": "memory-service-webhooks",
        [SIGNATURE_HEADER]: signature(Redacted.value(settings.secret), body),
        ...authorization
      },
      body,
      redirect: "manual",
      signal: AbortSignal.any([interrupted, AbortSignal.timeout(settings.timeoutMs)])
    })
    // The answer's body is not used; reading it lets the connection be reused.
    await response.arrayBuffer()
    return response.status
  }).pipe(
    Effect.map((status): Attempt => ({ outcome: outcomeOfStatus(status), detail: `HTTP ${status}` })),
    Effect.catchAll((error) =>
      Effect.succeed<Attempt>({
        outcome: "retry",
        detail: error.cause instanceof Error && error.cause.name === "TimeoutError"
          ? `no answer within ${settings.timeoutMs} ms`
          : `${shownWebhookUrl(Redacted.value(settings.url))} could not be reached (${describe(error.cause)})`
      })
    )
  )
}

/** Credentials in the URL are sent as HTTP Basic authentication (fetch refuses them in a URL). */
const withoutCredentials = (text: string) => {
  const url = new URL(text)
  if (url.username === "" && url.password === "") return { url: text, authorization: {} }
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`
  url.username = ""
  url.password = ""
  return { url: url.toString(), authorization: { Authorization: `Basic ${Buffer.from(credentials).toString("base64")}` } }
}

/** Why a request got no answer, by its error code alone: a message may quote the URL, and its token. */
const describe = (cause: unknown): string => {
  const inner = cause instanceof Error && cause.cause instanceof Error ? cause.cause : cause
  if (inner instanceof Error) return "code" in inner && typeof inner.code === "string" ? inner.code : inner.name
  return "unknown error"
}
