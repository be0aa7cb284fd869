import type { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import { profileAddedEvent, profileSupersededEvent } from "../../../domain/auditEvents.js"
import { utcTimestamp } from "../../../util/timestamps.js"
import type { ProfileSettlement } from "../../UserStore.js"
import { insertEvent } from "./events.js"
import { closeFact, insertFact } from "./factWrites.js"
import { FactQueries } from "./facts.js"
import { ProfileQueries } from "./profiles.js"

/**
 * Writes an entity's new profile, superseding its previous one from the profile's valid_from,
 * and clears its stale mark, in one transaction; without a profile only the mark is cleared.
 */
export const settleProfile = (
  sql: SqlClient.SqlClient,
  settle: ProfileSettlement
) =>
  sql.withTransaction(Effect.gen(function*() {
    const { audit, entity, profile } = settle
    const millis = yield* Clock.currentTimeMillis
    const now = utcTimestamp(millis)
    const profiles = ProfileQueries(sql)
    if (profile === undefined) {
      yield* profiles.settle(entity.entity_id, null, now)
      return { written: false, superseded: false }
    }
    const { citations, fact } = profile
    yield* insertFact(sql, fact, now, millis / 1000)
    yield* insertEvent(sql, profileAddedEvent(entity, fact.factId, citations), audit, now)
    const old = entity.profile === null ? undefined : yield* FactQueries(sql).find(entity.profile)
    const superseded = old !== undefined && old.status === "active"
    if (superseded) {
      yield* closeFact(sql, old, { newFactId: fact.factId, validUntil: fact.validFrom, now, epochSeconds: millis / 1000 })
      yield* insertEvent(sql, profileSupersededEvent(entity, old.fact_id, fact.factId), audit, now)
    }
    yield* profiles.settle(entity.entity_id, fact.factId, now)
    return { written: true, superseded }
  }))
