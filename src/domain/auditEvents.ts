import type { AuditContext } from "./audit.js"
import { type FactRow, type NewEvent, type ScopeFilter, scopeOf, type StaleEntity, UNSCOPED } from "./records.js"

// The audit events of changes whose wording depends on what the store holds when the change is
// made: every backend writes them in the change's own transaction. An event about one memory
// (a profile too) carries that memory's scope stamps; one about a whole user, none.

export const archiveEvent = (fact: FactRow, audit: AuditContext): NewEvent => ({
  type: "memory_delete",
  memoryId: fact.fact_id,
  sessionId: fact.session_id,
  reason: `archived by ${audit.actor}`,
  details: { action: "archive", archived: true, previous_status: fact.status },
  scope: scopeOf(fact)
})

export const purgeEvent = (fact: FactRow, cascaded: Record<string, number>, audit: AuditContext): NewEvent => ({
  type: "memory_delete",
  memoryId: fact.fact_id,
  sessionId: fact.session_id,
  reason: `purged by ${audit.actor}`,
  details: { action: "purge", previous_status: fact.status, cascaded },
  scope: scopeOf(fact)
})

export const archiveAllEvent = (archived: number, audit: AuditContext): NewEvent => ({
  type: "memory_delete",
  memoryId: null,
  sessionId: null,
  reason: `all memories archived by ${audit.actor}`,
  details: { action: "archive_user", archived },
  scope: UNSCOPED
})

export const profileAddedEvent = (entity: StaleEntity, profile: { readonly factId: string; readonly scope: ScopeFilter }, citations: ReadonlyArray<string>): NewEvent => ({
  type: "memory_add",
  memoryId: profile.factId,
  sessionId: null,
  reason: `profile of ${entity.name} rebuilt by dream`,
  details: { action: "profile", entity_id: entity.entity_id, citations },
  scope: profile.scope
})

/** The new profile is of the old one's scope. */
export const profileSupersededEvent = (entity: StaleEntity, old: FactRow, newId: string): NewEvent => ({
  type: "memory_supersede",
  memoryId: old.fact_id,
  sessionId: null,
  reason: `profile of ${entity.name} superseded by a rebuilt one`,
  details: { action: "update", status: "superseded", new_memory_id: newId, superseded_id: old.fact_id },
  scope: scopeOf(old)
})

export const profileRetiredEvent = (entity: StaleEntity, old: FactRow): NewEvent => ({
  type: "memory_delete",
  memoryId: old.fact_id,
  sessionId: null,
  reason: `profile of ${entity.name} archived by dream: no current fact of its scope is left`,
  details: { action: "archive", archived: true, previous_status: old.status },
  scope: scopeOf(old)
})

/** A user erased: recorded nowhere in their store (it is gone), only announced to the webhook receiver. */
export const eraseUserEvent: NewEvent = {
  type: "memory_delete",
  memoryId: null,
  sessionId: null,
  reason: "every memory of the user purged, and the user's store erased",
  details: { action: "purge_user", purged: true },
  scope: UNSCOPED
}
