import Sqlite from "better-sqlite3"
import { Effect } from "effect"
import { fileFailure } from "./fileFailure.js"

/** Pages per step of SQLite's backup: all of them, so that the copy is made in one read transaction. */
const ALL_PAGES = 0x7fffffff

/** better-sqlite3 reports a step refused with SQLITE_BUSY as a finished backup of no pages: named for what it is. */
const stillLocked = (source: string) => Object.assign(new Error(`${source} is locked`), { code: "SQLITE_BUSY" })

/**
 * Copies a live SQLite database (WAL mode, written by the service meanwhile) into a new file, as
 * of one moment, through SQLite's online backup API on a read-only connection.
 *
 * The API takes its read lock one step at a time and starts again whenever another connection
 * wrote between two steps: on a store being written, a copy in small steps could restart without
 * end. In one step it copies every page inside one read transaction, which WAL lets writers work
 * beside (their checkpoints only stop short of the frames that snapshot still reads). Pages are
 * copied as they are, far cheaper than `VACUUM INTO`, which rebuilds every table and index.
 *
 * The copy then leaves WAL mode for a rollback journal: a single self-contained file, which a
 * read-only open later leaves untouched (no -wal or -shm beside it). The service puts a restored
 * store back in WAL mode when it opens it.
 */
export const onlineCopy = (source: string, target: string) =>
  Effect.tryPromise({
    try: async () => {
      const db = new Sqlite(source, { readonly: true, fileMustExist: true })
      try {
        // A read first: a lock held elsewhere fails here, once the connection's busy wait is over.
        const { tables } = db.prepare<[], { tables: number }>("SELECT count(*) AS tables FROM sqlite_schema").get() ?? { tables: 0 }
        const copied = await db.backup(target, { progress: () => ALL_PAGES })
        if (copied.totalPages === 0 && tables > 0) throw stillLocked(source)
      } finally {
        db.close()
      }
    },
    catch: (cause) => fileFailure(`copying ${source}`, target, cause)
  }).pipe(
    Effect.zipRight(Effect.try({
      try: () => {
        const copy = new Sqlite(target, { fileMustExist: true })
        try {
          copy.pragma("journal_mode = DELETE")
        } finally {
          copy.close()
        }
      },
      catch: (cause) => fileFailure("finishing a copy", target, cause)
    }))
  )
