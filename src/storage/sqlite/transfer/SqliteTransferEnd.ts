import { Reactivity } from "@effect/experimental"
import type { SqlClient, SqlError } from "@effect/sql"
import { Effect, Exit, Scope } from "effect"
import * as NodeFs from "node:fs"
import type { StoreUnavailable } from "../../../api/errors.js"
import type { StartupError } from "../../../startup/StartupError.js"
import { MigrationRefused, MigrationStoreFailed } from "../../transfer/errors.js"
import type { TransferEnd } from "../../transfer/TransferEnd.js"
import { makeCheckpointer } from "../checkpointer.js"
import { openControlDb } from "../control/ControlDb.js"
import { lockDataRoot } from "../DataRootLock.js"
import { userDirectories } from "../inventory.js"
import { openStoreFile, storeDirectory, storeFilePath } from "../storeFile.js"
import { ControlRows } from "../../transfer/controlRows.js"
import { StoreRows } from "./userRows.js"

/**
 * A data root as one end of a migration, for the enclosing scope: its lock is held all along
 * (refused while a service holds it), and each user's store is opened by the adapter's own
 * opening, migrations included, then closed.
 */
export const sqliteTransferEnd = (dataRoot: string) =>
  Effect.gen(function*() {
    yield* lockDataRoot(dataRoot)
    const control = yield* openControlDb(dataRoot)
    const checkpointer = yield* makeCheckpointer
    const reactivity = yield* Reactivity.Reactivity
    const failed = (error: SqlError.SqlError | StoreUnavailable) => new MigrationStoreFailed({ message: `${dataRoot}: ${error.message}` })
    const exists = (userId: string) => NodeFs.existsSync(storeFilePath(dataRoot, userId))

    const withStore = <A>(userId: string, use: (sql: SqlClient.SqlClient) => Effect.Effect<A, SqlError.SqlError>) =>
      Effect.acquireUseRelease(
        openStoreFile({ dataRoot, userId, checkpointer, reactivity, webhooks: false }),
        ({ sql }) => use(sql),
        ({ scope }) => Scope.close(scope, Exit.void)
      ).pipe(Effect.mapError(failed))

    return {
      label: dataRoot,
      users: Effect.sync(() => userDirectories(dataRoot).filter(exists)),
      readUser: (userId) => exists(userId) ? withStore(userId, (sql) => StoreRows(sql).read(userId)) : Effect.succeed(undefined),
      // A store that holds part of the user goes whole: the copy starts from a new one.
      replaceUser: (snapshot) =>
        Effect.sync(() => NodeFs.rmSync(storeDirectory(dataRoot, snapshot.userId), { recursive: true, force: true })).pipe(
          Effect.zipRight(withStore(snapshot.userId, (sql) => sql.withTransaction(StoreRows(sql).write(snapshot))))
        ),
      countUser: (userId) => exists(userId) ? withStore(userId, (sql) => StoreRows(sql).count) : Effect.succeed({}),
      readControl: ControlRows(control).read.pipe(Effect.mapError(failed)),
      appendControl: (rows) => ControlRows(control).append(rows).pipe(Effect.mapError(failed)),
      countControl: ControlRows(control).count.pipe(Effect.mapError(failed))
    } satisfies TransferEnd
  }).pipe(
    Effect.catchTag("StartupError", (error: StartupError) => new MigrationRefused({ code: error.code, message: error.message })),
    Effect.provideServiceEffect(Reactivity.Reactivity, Reactivity.make)
  )
