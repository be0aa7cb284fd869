import { Effect, Option, Redacted } from "effect"
import { configInvalid } from "../startup/StartupError.js"
import { boolVar, intVar, secretVar } from "./variables.js"

export interface WebhookSettings {
  /** The receiver's URL, kept secret: it may carry credentials. */
  readonly url: Redacted.Redacted
  /** The HMAC-SHA256 key every body is signed with. */
  readonly secret: Redacted.Redacted
  /** One delivery attempt's limit. */
  readonly timeoutMs: number
  /** The first retry's delay; each further one doubles it, up to `retryMaxMs`, with jitter. */
  readonly retryBaseMs: number
  readonly retryMaxMs: number
  /** Users whose events are being delivered at once. */
  readonly concurrency: number
  /** Undelivered events a user's outbox keeps; past it the oldest are dropped, and counted. */
  readonly retentionMax: number
}

/** Whether a text is an http(s) URL with a host. */
const isHttpUrl = (text: string) =>
  URL.canParse(text) && ["http:", "https:"].includes(new URL(text).protocol) && new URL(text).hostname !== ""

/** The URL as operators may see it: without credentials, query or fragment (either may hold a token). */
export const shownWebhookUrl = (url: string) => {
  const parsed = new URL(url)
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`
}

/** The webhook variables; a URL that is not http(s), or one without a secret, stops the start. */
export const webhookSettings = Effect.gen(function*() {
  const url = yield* secretVar("SERVICE_WEBHOOK_URL")
  const secret = yield* secretVar("SERVICE_WEBHOOK_SECRET")
  const timeoutMs = yield* intVar("SERVICE_WEBHOOK_TIMEOUT_MS", 5_000, { min: 100, max: 120_000 })
  const retryBaseMs = yield* intVar("SERVICE_WEBHOOK_RETRY_BASE_MS", 1_000, { min: 10, max: 600_000 })
  const retryMaxMs = yield* intVar("SERVICE_WEBHOOK_RETRY_MAX_MS", 300_000, { min: retryBaseMs, max: 86_400_000 })
  const concurrency = yield* intVar("SERVICE_WEBHOOK_CONCURRENCY", 4, { min: 1, max: 64 })
  const retentionMax = yield* intVar("SERVICE_WEBHOOK_RETENTION_MAX", 10_000, { min: 1 })
  if (Option.isNone(url)) {
    if (Option.isSome(secret)) yield* Effect.logWarning("SERVICE_WEBHOOK_SECRET is set without SERVICE_WEBHOOK_URL: no webhooks are sent")
    return Option.none<WebhookSettings>()
  }
  if (!isHttpUrl(Redacted.value(url.value))) {
    return yield* configInvalid("SERVICE_WEBHOOK_URL", "expected an http:// or https:// URL (the value is not shown)")
  }
  if (Option.isNone(secret)) {
    return yield* configInvalid("SERVICE_WEBHOOK_SECRET", "is required while SERVICE_WEBHOOK_URL is set: every delivery is signed with it")
  }
  return Option.some<WebhookSettings>({ url: url.value, secret: secret.value, timeoutMs, retryBaseMs, retryMaxMs, concurrency, retentionMax })
})

/**
 * What a process asks of the deployment's webhook setting when it starts. Webhooks are on or off
 * for the whole database (every process's writes fill the outboxes, or none do): a process with
 * SERVICE_WEBHOOK_URL turns them on, only SERVICE_WEBHOOKS_OFF turns them off, and a process with
 * neither keeps the setting it finds, so that one replica without webhooks never stops the others'.
 */
export type WebhookSwitch = "on" | "off" | "keep"

export const webhookSwitchSetting = (webhook: Option.Option<WebhookSettings>) =>
  Effect.gen(function*() {
    const off = yield* boolVar("SERVICE_WEBHOOKS_OFF", false)
    if (off && Option.isSome(webhook)) {
      return yield* configInvalid("SERVICE_WEBHOOKS_OFF", "turns webhooks off for the database: it cannot be set with SERVICE_WEBHOOK_URL")
    }
    return off ? "off" as const : Option.isSome(webhook) ? "on" as const : "keep" as const
  })
