import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { nowTimestamp } from "../../../util/timestamps.js"
import { writeBatches } from "../../transfer/batches.js"
import { USER_TABLES } from "../../transfer/records.js"
import type { UserLoad } from "../../UserStore.js"
import { insertEvent } from "../user/events.js"
import { VectorQueries } from "../user/vectors.js"
import { StoreRows } from "./userRows.js"

/** A user's store read page by page and loaded whole, over the transfer records. */
export const StorePortability = (sql: SqlClient.SqlClient) => {
  const rows = StoreRows(sql)
  const holds = Effect.map(
    Effect.forEach(USER_TABLES, (table) => sql`SELECT 1 AS present FROM ${sql.literal(table)} LIMIT 1`),
    (found) => found.some((present) => present.length > 0)
  )
  return {
    holds,
    space: Effect.map(VectorQueries(sql).space, (space) => space ?? null),
    page: rows.page,
    load: <E>(load: UserLoad<E>) =>
      sql.withTransaction(Effect.gen(function*() {
        if (yield* holds) return "Occupied" as const
        if (load.space !== null) yield* VectorQueries(sql).claim(load.space)
        const loaded = yield* writeBatches(load.batches, (batch) => rows.insertRows(batch, load.space))
        yield* insertEvent(sql, load.event(loaded), load.audit, yield* nowTimestamp)
        return "Loaded" as const
      }))
  }
}
