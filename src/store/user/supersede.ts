import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as NodeCrypto from "node:crypto"
import type { FactRow } from "./facts.js"

export interface Correction {
  readonly newFactId: string
  readonly content: string
  readonly sessionId: string
  /** When the correction became true: the new version's valid_from and the old one's valid_until. */
  readonly sessionTime: string
  readonly spanId: string
  readonly now: string
  readonly epochSeconds: number
}

/**
 * Writes the new version of a fact and closes the old one: status superseded, valid_until and
 * superseded_by set, a SUPERSEDES edge from new to old. The new version keeps the old one's kind,
 * scope stamps and entity roles; those entities' profiles are marked stale.
 */
export const supersedeFact = (sql: SqlClient.SqlClient, old: FactRow, correction: Correction) =>
  Effect.gen(function*() {
    yield* sql`INSERT INTO facts ${
      sql.insert({
        fact_id: correction.newFactId,
        content: correction.content,
        kind: old.kind,
        status: "active",
        session_id: correction.sessionId,
        occurred_at: correction.sessionTime,
        valid_from: correction.sessionTime,
        confidence: 1,
        metadata: JSON.stringify({ support_text: correction.content, corrects: old.fact_id, time_source: "session_time" }),
        agent_id: old.agent_id,
        run_id: old.run_id,
        project_id: old.project_id,
        created_at: correction.now,
        updated_at: correction.now
      })
    }`
    yield* sql`INSERT INTO fact_sources (fact_id, span_id) VALUES (${correction.newFactId}, ${correction.spanId})`
    yield* sql`UPDATE facts SET status = 'superseded', valid_until = ${correction.sessionTime},
               superseded_by = ${correction.newFactId}, updated_at = ${correction.now}
               WHERE fact_id = ${old.fact_id}`
    yield* sql`INSERT INTO edges ${
      sql.insert({
        edge_id: `edge_${NodeCrypto.randomUUID()}`,
        src_fact_id: correction.newFactId,
        dst_id: old.fact_id,
        edge_type: "SUPERSEDES",
        predicate: "supersedes",
        confidence: 1,
        created_at: correction.epochSeconds
      })
    }`
    yield* sql`INSERT INTO fact_entity_roles (fact_id, entity_id, role)
               SELECT ${correction.newFactId}, entity_id, role FROM fact_entity_roles WHERE fact_id = ${old.fact_id}`
    yield* sql`UPDATE entities SET profile_stale = 1, updated_at = ${correction.now}
               WHERE entity_id IN (SELECT entity_id FROM fact_entity_roles WHERE fact_id = ${old.fact_id})`
  })
