import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { AuditContext } from "../../../domain/audit.js"
import type { EventRow, NewEvent, ScopeFilter } from "../../../domain/records.js"
import { eventRowValues } from "../../rowValues.js"
import { insertBatches } from "./batches.js"
import { scopedTo } from "./retrieval.js"

/** Appends audit events in their order; callers run it inside the transaction of the change they record. */
export const insertEvents = (sql: SqlClient.SqlClient, events: ReadonlyArray<NewEvent>, audit: AuditContext, ts: string) =>
  Effect.forEach(insertBatches(events), (batch) =>
    sql`INSERT INTO events ${
      sql.insert(batch.map((event) => eventRowValues(event, audit, ts)))
    }`, { discard: true })

/** Appends one audit event, as insertEvents does. */
export const insertEvent = (sql: SqlClient.SqlClient, event: NewEvent, audit: AuditContext, ts: string) => insertEvents(sql, [event], audit, ts)

/** The event columns as an EventRow, on a query that names events `e`. */
export const EVENT_COLUMNS = "e.event_id, e.ts, e.type, e.memory_id, e.session_id, e.reason, e.details, e.agent_id, e.run_id, e.project_id"

/** Newest first, optionally of one type, narrowed by scope, with how many there are in all. */
export const listEvents = (
  sql: SqlClient.SqlClient,
  options: { readonly type: string | null; readonly scope: ScopeFilter; readonly offset: number; readonly limit: number }
) => {
  const where = sql`${options.type === null ? sql`1 = 1` : sql`e.type = ${options.type}`} AND ${scopedTo(sql, "e", options.scope)}`
  return Effect.all({
    rows: sql<EventRow>`SELECT ${sql.literal(EVENT_COLUMNS)} FROM events e
                        WHERE ${where} ORDER BY e.seq DESC LIMIT ${options.limit} OFFSET ${options.offset}`,
    total: Effect.map(sql<{ readonly n: number }>`SELECT count(*) AS n FROM events e WHERE ${where}`, (rows) => rows[0]?.n ?? 0)
  })
}
