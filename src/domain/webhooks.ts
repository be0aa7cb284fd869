import { Schema } from "effect"
import * as NodeCrypto from "node:crypto"
import type { EventRow } from "./records.js"

const scopeStamp = (key: string) =>
  Schema.NullOr(Schema.String).annotations({
    description: `The ${key} of the write that caused the change (the memory's stamp); null when the change is not one scope's (a whole user's, a profile's) or was made before events carried scope.`
  })

/**
 * A memory change as `/v1/events` lists it and a webhook delivers it (with its delivery id and
 * attempt): one view for both.
 */
export const ChangeEvent = Schema.Struct({
  event_id: Schema.String.annotations({ description: "The event's id (trace_<uuid>)." }),
  ts: Schema.String.annotations({ description: "When the change was made: UTC ISO-8601 with microseconds, e.g. 2026-11-22T14:44:51.553000+00:00." }),
  user_id: Schema.String.annotations({ description: "The user whose memory changed." }),
  agent_id: scopeStamp("agent_id"),
  run_id: scopeStamp("run_id"),
  project_id: scopeStamp("project_id"),
  type: Schema.String.annotations({ description: "What changed: memory_add, memory_supersede or memory_delete." }),
  memory_id: Schema.NullOr(Schema.String).annotations({
    description: "The memory the change is about; null for a change of many (an ingest's turns, an import, a whole user's archive or erasure)."
  }),
  session_id: Schema.NullOr(Schema.String).annotations({ description: "The session the change came from; null when none did (a delete, a profile)." }),
  reason: Schema.NullOr(Schema.String).annotations({ description: "Why, in words: e.g. \"extracted from session s1\", \"updated by session s2: …\", \"archived by key:ops\"." }),
  details: Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
    description: "More about the change, free-form: action (extract, update, contradict, duplicate_merge, archive, purge, profile, import, …), actor (bootstrap, anonymous, mcp or key:<name>) and request_id, and per action e.g. new_memory_id, cascaded."
  })
})
export type ChangeEvent = typeof ChangeEvent.Type

/** A change queued before events carried project_id has none: it reads as null. */
const QueuedChange = Schema.Struct({
  ...ChangeEvent.fields,
  project_id: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null })
})

/** A change kept as JSON (in the control plane's queue), read back. */
export const parseChangeEvent = Schema.decodeUnknown(Schema.parseJson(QueuedChange))

/** An audit event of a user's store as the service shows it. */
export const changeEvent = (userId: string, row: EventRow): ChangeEvent => ({
  event_id: row.event_id,
  ts: row.ts,
  user_id: userId,
  agent_id: row.agent_id,
  run_id: row.run_id,
  project_id: row.project_id,
  type: row.type,
  memory_id: row.memory_id,
  session_id: row.session_id,
  reason: row.reason,
  details: JSON.parse(row.details) as Record<string, unknown>
})

/** JSON with every object's keys sorted and no whitespace: the bytes a receiver verifies. */
export const canonicalJson = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner)

/** The header a receiver checks: `sha256=` and the hex HMAC-SHA256 of the exact body. */
export const SIGNATURE_HEADER = "X-SodaMem-Signature"

export const signature = (secret: string, body: string) =>
  `sha256=${NodeCrypto.createHmac("sha256", secret).update(body, "utf8").digest("hex")}`

/** One attempt's body: the event, the delivery's id and which attempt this is (from 1). */
export const deliveryBody = (event: ChangeEvent, attempt: number) =>
  canonicalJson({ ...event, delivery_id: `dlv_${NodeCrypto.randomUUID().replaceAll("-", "")}`, attempt })

/** How an attempt ended, as far as retrying goes. */
export type AttemptOutcome = "delivered" | "retry" | "failed"

/**
 * A 2xx delivers; 429 and 5xx (the receiver overloaded or failing) are tried again, as are
 * timeouts and connection errors; any other status is an answer that a retry would not change.
 */
export const outcomeOfStatus = (status: number): AttemptOutcome =>
  status >= 200 && status < 300 ? "delivered" : status === 429 || status >= 500 ? "retry" : "failed"

/** The wait before the next attempt after `attempts` failed ones: doubling from `baseMs` up to `maxMs`, the upper half jittered. */
export const retryDelayMs = (attempts: number, baseMs: number, maxMs: number, random: number) => {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(attempts - 1, 30))
  return Math.round(ceiling / 2 + (ceiling / 2) * random)
}
