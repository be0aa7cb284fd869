import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** The advisory-lock namespace of users' maintenance locks, apart from the per-user write locks. */
const MAINTENANCE_LOCKS = 7_300_022

/**
 * A user's maintenance lock: a session-level advisory lock on a connection reserved for the
 * scope, so that it holds across the run's transactions and goes with the connection if the
 * process dies. Unlocked before the connection goes back to the pool.
 */
export const maintenanceLock = (sql: SqlClient.SqlClient, userId: string) =>
  Effect.gen(function*() {
    const connection = yield* sql.reserve
    const [row] = yield* connection.executeValues("SELECT pg_try_advisory_lock($1, hashtext($2))", [MAINTENANCE_LOCKS, userId])
    const held = row?.[0] === true
    if (held) {
      yield* Effect.addFinalizer(() =>
        connection.executeValues("SELECT pg_advisory_unlock($1, hashtext($2))", [MAINTENANCE_LOCKS, userId]).pipe(
          Effect.catchAll((error) => Effect.logWarning("a maintenance lock could not be given back; it goes with its connection", error))
        )
      )
    }
    return held
  })
