import { Context } from "effect"

/**
 * Exclusive ownership of the data root for the life of the process. The lock is an open
 * EXCLUSIVE transaction on a SQLite file: a second process gets SQLITE_BUSY at once, and the
 * kernel drops the lock when its holder dies, so a killed process never blocks a restart.
 */
export class DataRootLock extends Context.Tag("Memory/DataRootLock")<DataRootLock, { readonly dataRoot: string }>() {}
