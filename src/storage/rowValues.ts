import type { AuditContext } from "../domain/audit.js"
import { entityId, newEdgeId, newEventId } from "../domain/ids.js"
import type { NewEvent, NewFact } from "../domain/records.js"
import { normalizeName } from "../domain/text.js"

// The column values of the rows every backend writes for a new fact, its entities and edges, and
// an audit event: the same values whatever the engine, so that data moves between backends unchanged.

/** A new fact's row: active, its metadata as JSON text, stamped with its scope. */
export const factRowValues = (fact: NewFact, now: string) => ({
  fact_id: fact.factId,
  content: fact.content,
  kind: fact.kind,
  status: "active",
  session_id: fact.sessionId,
  occurred_at: fact.occurredAt,
  valid_from: fact.validFrom,
  confidence: fact.confidence,
  metadata: JSON.stringify(fact.metadata),
  ...fact.scope,
  created_at: now,
  updated_at: now
})

/** An audit event's row: its details with who made the change and in which request, stamped with the change's scope. */
export const eventRowValues = (event: NewEvent, audit: AuditContext, ts: string) => ({
  event_id: newEventId(),
  ts,
  type: event.type,
  memory_id: event.memoryId,
  session_id: event.sessionId,
  reason: event.reason,
  details: JSON.stringify({ ...event.details, actor: audit.actor, request_id: audit.requestId }),
  ...event.scope
})

/** How an entity's role in a fact shows as a graph edge. */
const EDGE_OF_ROLE: Record<string, string> = { subject: "SUBJECT_OF", object: "OBJECT_OF" }

export const edgeTypeOfRole = (role: string) => EDGE_OF_ROLE[role] ?? "MENTIONS"

/** An edge's row; edges are written by the store itself, certain unless they say otherwise. */
export const edgeRowValues = (srcFactId: string, dstId: string, edgeType: string, predicate: string | null, epochSeconds: number) => ({
  edge_id: newEdgeId(),
  src_fact_id: srcFactId,
  dst_id: dstId,
  edge_type: edgeType,
  predicate,
  confidence: 1,
  created_at: epochSeconds
})

/** A profile summarizes its entity: writing or closing one never makes that entity's profile stale. */
export const marksProfilesStale = (fact: { readonly kind: string }) => fact.kind !== "profile"

/** A fact's distinct entity roles, and its distinct entities, each with the last name and role it came with. */
export const entityLinks = (fact: NewFact) => {
  const roles = [...new Map(
    fact.entities.filter((entity) => normalizeName(entity.name) !== "").map((entity) => [`${entityId(entity.name)} ${entity.role}`, entity])
  ).values()]
  return { roles, entities: new Map(roles.map((entity) => [entityId(entity.name), entity])) }
}
