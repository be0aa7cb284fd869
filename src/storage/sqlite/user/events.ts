import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { AuditContext } from "../../../domain/audit.js"
import type { EventRow, NewEvent } from "../../../domain/records.js"
import { eventRowValues } from "../../rowValues.js"
import { insertBatches } from "./batches.js"

/** Appends audit events in their order; callers run it inside the transaction of the change they record. */
export const insertEvents = (sql: SqlClient.SqlClient, events: ReadonlyArray<NewEvent>, audit: AuditContext, ts: string) =>
  Effect.forEach(insertBatches(events), (batch) =>
    sql`INSERT INTO events ${
      sql.insert(batch.map((event) => eventRowValues(event, audit, ts)))
    }`, { discard: true })

/** Appends one audit event, as insertEvents does. */
export const insertEvent = (sql: SqlClient.SqlClient, event: NewEvent, audit: AuditContext, ts: string) => insertEvents(sql, [event], audit, ts)

/** Newest first, optionally of one type, with how many there are in all. */
export const listEvents = (sql: SqlClient.SqlClient, type: string | null, offset: number, limit: number) => {
  const where = type === null ? sql`1 = 1` : sql`type = ${type}`
  return Effect.all({
    rows: sql<EventRow>`SELECT event_id, ts, type, memory_id, session_id, reason, details FROM events
                        WHERE ${where} ORDER BY seq DESC LIMIT ${limit} OFFSET ${offset}`,
    total: Effect.map(sql<{ readonly n: number }>`SELECT count(*) AS n FROM events WHERE ${where}`, (rows) => rows[0]?.n ?? 0)
  })
}
