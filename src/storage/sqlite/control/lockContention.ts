import { Reactivity } from "@effect/experimental"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect } from "effect"
import { nowTimestamp } from "../../../util/timestamps.js"
import type { LockContention } from "../../../domain/records.js"
import { ControlDb, controlDbPath } from "./ControlDb.js"


export const readLockContention = Effect.gen(function*() {
  const sql = yield* ControlDb
  const rows = yield* sql<{ readonly count: number; readonly last_at: string | null }>`
    SELECT count, last_at FROM lock_contention WHERE id = 1`
  const row = rows[0]
  return { count: row?.count ?? 0, last: row?.last_at ?? null } satisfies LockContention
}).pipe(Effect.orDie)

/**
 * Counts a refused start in the running owner's control database (WAL lets this process write
 * beside it). Best effort: a refused process must exit with data_root_locked whatever happens here.
 */
export const recordLockContention = (dataRoot: string) =>
  Effect.gen(function*() {
    const sql = yield* SqliteClient.make({ filename: controlDbPath(dataRoot) })
    yield* sql`PRAGMA busy_timeout = 2000`
    const at = yield* nowTimestamp
    yield* sql`
      INSERT INTO lock_contention (id, count, last_at) VALUES (1, 1, ${at})
      ON CONFLICT (id) DO UPDATE SET count = count + 1, last_at = excluded.last_at`
  }).pipe(
    Effect.scoped,
    Effect.provide(Reactivity.layer),
    Effect.catchAll((error) => Effect.logWarning("lock contention could not be recorded", error))
  )
