import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as NodeCrypto from "node:crypto"
import type { AuditContext } from "../../services/AuditContext.js"

export type EventType = "memory_add" | "memory_supersede" | "memory_delete"

export interface NewEvent {
  readonly type: EventType
  readonly memoryId: string | null
  readonly sessionId: string | null
  readonly reason: string
  readonly details: Record<string, unknown>
}

/** Appends an audit event; callers run it inside the transaction of the change it records. */
export const insertEvent = (sql: SqlClient.SqlClient, event: NewEvent, audit: AuditContext, ts: string) =>
  sql`INSERT INTO events ${
    sql.insert({
      event_id: `trace_${NodeCrypto.randomUUID()}`,
      ts,
      type: event.type,
      memory_id: event.memoryId,
      session_id: event.sessionId,
      reason: event.reason,
      details: JSON.stringify({ ...event.details, actor: audit.actor, request_id: audit.requestId })
    })
  }`.pipe(Effect.asVoid)
