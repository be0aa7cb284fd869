import { Layer } from "effect"
import { SqliteControlStoreLive } from "./control/SqliteControlStore.js"
import { DataRootLockLive } from "./DataRootLock.js"
import { SqliteUserStoreLive } from "./SqliteUserStore.js"

/**
 * Both storage ports on the embedded SQLite backend under SERVICE_DATA_ROOT: the data root is
 * locked first, so one process owns its control database and user stores.
 */
export const SqliteStorageLive = Layer.merge(SqliteUserStoreLive, SqliteControlStoreLive).pipe(Layer.provide(DataRootLockLive))
