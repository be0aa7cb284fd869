import Database from "better-sqlite3"
import * as NodePath from "node:path"
import * as SqliteVec from "sqlite-vec"

/** Opens a user's store file beside the running server (as WAL allows), for one use; the store must exist. */
export const withStoreFile = <A>(dataRoot: string, userId: string, options: { readonly readonly: boolean }, use: (db: Database.Database) => A): A => {
  const db = new Database(NodePath.join(dataRoot, userId, "store.db"), { readonly: options.readonly, fileMustExist: true })
  try {
    db.loadExtension(SqliteVec.getLoadablePath())
    return use(db)
  } finally {
    db.close()
  }
}

/** Reads a user's store file directly (read-only, beside the running server), for what only SQLite has. */
export const queryStore = <T>(dataRoot: string, userId: string, sql: string, ...params: Array<unknown>): Array<T> =>
  withStoreFile(dataRoot, userId, { readonly: true }, (db) => db.prepare<Array<unknown>, T>(sql).all(...params))

