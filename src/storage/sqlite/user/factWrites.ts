import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { entityId } from "../../../domain/ids.js"
import { normalizeName } from "../../../domain/text.js"
import type { FactRow, NewFact, Replacement } from "../../../domain/records.js"
import { edgeRowValues, edgeTypeOfRole, entityLinks, factRowValues, marksProfilesStale } from "../../rowValues.js"
import { insertBatches } from "./batches.js"

/**
 * Writes facts with their source links, their entities (created on first mention; their profiles
 * marked stale, unless only profiles name them), their entity roles and an edge from each fact to
 * each of its entities: one statement per table for the lot. Answers the facts' rowids, in order.
 */
export const insertFacts = (sql: SqlClient.SqlClient, facts: ReadonlyArray<NewFact>, now: string, epochSeconds: number) =>
  Effect.gen(function*() {
    const seqs = new Map<string, number>()
    for (const batch of insertBatches(facts)) {
      const rows = yield* sql<{ readonly fact_id: string; readonly seq: number }>`INSERT INTO facts ${
        sql.insert(batch.map((fact) => factRowValues(fact, now)))
      } RETURNING fact_id, seq`
      for (const row of rows) seqs.set(row.fact_id, row.seq)
    }
    const sources = facts.flatMap((fact) => fact.spanIds.map((spanId) => ({ fact_id: fact.factId, span_id: spanId })))
    const links = facts.map((fact) => ({ fact, ...entityLinks(fact) }))
    // One row per entity: its first name, stale when any fact naming it marks profiles stale.
    const entities = new Map<string, { entity_id: string; name: string; normalized_name: string; profile_stale: number; updated_at: string }>()
    for (const { entities: named, fact } of links) {
      const stale = marksProfilesStale(fact) ? 1 : 0
      for (const [id, { name }] of named) {
        const known = entities.get(id)
        if (known === undefined) entities.set(id, { entity_id: id, name, normalized_name: normalizeName(name), profile_stale: stale, updated_at: now })
        else known.profile_stale = Math.max(known.profile_stale, stale)
      }
    }
    const roles = links.flatMap(({ fact, roles }) => roles.map((entity) => ({ fact_id: fact.factId, entity_id: entityId(entity.name), role: entity.role })))
    const edges = links.flatMap(({ entities: named, fact }) =>
      [...named].map(([id, { role }]) => edgeRowValues(fact.factId, id, edgeTypeOfRole(role), fact.predicate === "" ? null : fact.predicate, epochSeconds)))
    for (const batch of insertBatches(sources)) yield* sql`INSERT OR IGNORE INTO fact_sources ${sql.insert(batch)}`
    for (const batch of insertBatches([...entities.values()])) {
      yield* sql`INSERT INTO entities ${sql.insert(batch)}
                 ON CONFLICT (entity_id) DO UPDATE SET profile_stale = max(profile_stale, excluded.profile_stale), updated_at = excluded.updated_at`
    }
    for (const batch of insertBatches(roles)) yield* sql`INSERT OR IGNORE INTO fact_entity_roles ${sql.insert(batch)}`
    for (const batch of insertBatches(edges)) yield* sql`INSERT INTO edges ${sql.insert(batch)}`
    return facts.map((fact) => seqs.get(fact.factId)!)
  })

/** Writes one fact, as insertFacts does; its rowid. */
export const insertFact = (sql: SqlClient.SqlClient, fact: NewFact, now: string, epochSeconds: number) =>
  Effect.map(insertFacts(sql, [fact], now, epochSeconds), (seqs) => seqs[0]!)

/**
 * Closes a fact replaced by a newer version: status superseded, valid_until and superseded_by
 * set, a SUPERSEDES edge from the new version to it; its entities' profiles are marked stale.
 */
export const closeFact = (sql: SqlClient.SqlClient, old: Pick<FactRow, "fact_id" | "kind">, replacement: Replacement) =>
  Effect.gen(function*() {
    yield* sql`UPDATE facts SET status = 'superseded', valid_until = ${replacement.validUntil},
               superseded_by = ${replacement.newFactId}, updated_at = ${replacement.now}
               WHERE fact_id = ${old.fact_id}`
    yield* sql`INSERT INTO edges ${sql.insert(edgeRowValues(replacement.newFactId, old.fact_id, "SUPERSEDES", "supersedes", replacement.epochSeconds))}`
    if (marksProfilesStale(old)) {
      yield* sql`UPDATE entities SET profile_stale = 1, updated_at = ${replacement.now}
                 WHERE entity_id IN (SELECT entity_id FROM fact_entity_roles WHERE fact_id = ${old.fact_id})`
    }
  })

/** Adds the sources of a repeated statement to the fact that already says it. */
export const addSources = (sql: SqlClient.SqlClient, factId: string, spanIds: ReadonlyArray<string>, now: string) =>
  Effect.gen(function*() {
    if (spanIds.length === 0) return
    yield* sql`INSERT OR IGNORE INTO fact_sources ${sql.insert(spanIds.map((spanId) => ({ fact_id: factId, span_id: spanId })))}`
    yield* sql`UPDATE facts SET updated_at = ${now} WHERE fact_id = ${factId}`
  })

/** The entities of a fact with their roles, to carry them over to a corrected version. */
export const entitiesOf = (sql: SqlClient.SqlClient, factId: string) =>
  sql<{ readonly name: string; readonly role: string }>`
    SELECT e.name, r.role FROM fact_entity_roles r JOIN entities e ON e.entity_id = r.entity_id
    WHERE r.fact_id = ${factId} ORDER BY r.role, e.name`
