import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Advisory-lock namespaces of per-user locks held across transactions, apart from the per-user write locks. */
export const MAINTENANCE_LOCKS = 7_300_022
export const WEBHOOK_LOCKS = 7_300_023

/**
 * A per-user lock of a namespace: a session-level advisory lock on a connection of `lockSessions`
 * (not the requests' pool) reserved for the scope, so that it holds across transactions and goes
 * with the connection if the process dies. Unlocked before the connection goes back to its pool;
 * false when another session holds it.
 */
export const sessionLock = (lockSessions: SqlClient.SqlClient, namespace: number, userId: string) =>
  Effect.gen(function*() {
    const connection = yield* lockSessions.reserve
    const [row] = yield* connection.executeValues("SELECT pg_try_advisory_lock($1, hashtext($2))", [namespace, userId])
    const held = row?.[0] === true
    if (held) {
      yield* Effect.addFinalizer(() =>
        connection.executeValues("SELECT pg_advisory_unlock($1, hashtext($2))", [namespace, userId]).pipe(
          Effect.catchAll((error) => Effect.logWarning("a per-user lock could not be given back; it goes with its connection", error))
        )
      )
    }
    return held
  })
