import { Layer } from "effect"
import { ControlDbLive } from "./control/ControlDb.js"
import { SqliteControlStoreLive } from "./control/SqliteControlStore.js"
import { OutboxFillingLive } from "./outboxFilling.js"
import { DataRootLockLive } from "./DataRootLock.js"
import { SqliteUserStoreLive } from "./SqliteUserStore.js"

/**
 * Both storage ports on the embedded SQLite backend under SERVICE_DATA_ROOT: the data root is
 * locked first, so one process owns its control database and user stores; the user stores learn
 * from the control database whether webhooks are on.
 */
export const SqliteStorageLive = Layer.merge(SqliteUserStoreLive, SqliteControlStoreLive).pipe(
  Layer.provide(OutboxFillingLive),
  Layer.provide(ControlDbLive),
  Layer.provide(DataRootLockLive)
)
