import type { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import { profileAddedEvent, profileRetiredEvent, profileSupersededEvent } from "../../../domain/auditEvents.js"
import { utcTimestamp } from "../../../util/timestamps.js"
import { NOTHING_SETTLED, profilePlan, sourcesCurrent } from "../../profileSettlement.js"
import type { ProfileSettlement } from "../../UserStore.js"
import { inBatches } from "./batches.js"
import { insertEvents } from "./events.js"
import { closeFact, insertFacts } from "./factWrites.js"
import { ProfileQueries } from "./profiles.js"

/**
 * Settles a stale entity in one transaction (storage/profileSettlement.ts decides what is
 * written): new profiles superseding those of their scopes from their valid_from, profiles of
 * scopes left without facts archived, the stale mark cleared. Nothing while the entity is gone or
 * a source fact is no longer current.
 */
export const settleProfile = (sql: SqlClient.SqlClient, settle: ProfileSettlement) =>
  sql.withTransaction(Effect.gen(function*() {
    const { audit, entity, profiles, sources } = settle
    const queries = ProfileQueries(sql)
    if (!(yield* queries.exists(entity.entity_id))) return NOTHING_SETTLED
    const active = yield* inBatches(sources, (batch) => sql<{ readonly fact_id: string }>`
      SELECT fact_id FROM facts WHERE fact_id IN ${sql.in(batch)} AND status = 'active'`)
    if (!sourcesCurrent(sources, active)) return NOTHING_SETTLED
    const millis = yield* Clock.currentTimeMillis
    const now = utcTimestamp(millis)
    const plan = profilePlan(yield* queries.currentProfiles(entity.entity_id), profiles)
    yield* insertFacts(sql, plan.written.map(({ fact }) => fact), now, millis / 1000)
    yield* insertEvents(sql, plan.written.map(({ citations, fact }) => profileAddedEvent(entity, fact, citations)), audit, now)
    for (const { fact, old } of plan.supersedes) {
      yield* closeFact(sql, old, { newFactId: fact.factId, validUntil: fact.validFrom, now, epochSeconds: millis / 1000 })
    }
    yield* queries.retire(plan.retired.map((old) => old.fact_id), now)
    yield* insertEvents(sql, [
      ...plan.supersedes.map(({ fact, old }) => profileSupersededEvent(entity, old, fact.factId)),
      ...plan.retired.map((old) => profileRetiredEvent(entity, old))
    ], audit, now)
    yield* queries.settle(entity.entity_id, plan.written.at(-1)?.fact.factId ?? null, now)
    return { settled: true, written: plan.written.length, superseded: plan.supersedes.length }
  }))
