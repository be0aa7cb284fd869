import Database from "better-sqlite3"
import * as NodePath from "node:path"
import * as SqliteVec from "sqlite-vec"

/** Opens one of the embedded backend's files beside the running server (as WAL allows), for one use; the file must exist. */
const withSqliteFile = <A>(path: string, options: { readonly readonly: boolean }, use: (db: Database.Database) => A): A => {
  const db = new Database(path, { readonly: options.readonly, fileMustExist: true })
  try {
    return use(db)
  } finally {
    db.close()
  }
}

/** A user's store file under a data root. */
export const storeFile = (dataRoot: string, userId: string) => NodePath.join(dataRoot, userId, "store.db")

/** Opens a user's store file beside the running server (as WAL allows), for one use; the store must exist. */
export const withStoreFile = <A>(dataRoot: string, userId: string, options: { readonly readonly: boolean }, use: (db: Database.Database) => A): A =>
  withSqliteFile(storeFile(dataRoot, userId), options, (db) => {
    db.loadExtension(SqliteVec.getLoadablePath())
    return use(db)
  })

/** The control plane's file under a data root. */
export const controlFile = (dataRoot: string) => NodePath.join(dataRoot, ".control", "service_control.db")

/** Opens the control plane's file beside the running server, for one use; a service must have made it. */
export const withControlFile = <A>(dataRoot: string, options: { readonly readonly: boolean }, use: (db: Database.Database) => A): A =>
  withSqliteFile(controlFile(dataRoot), options, use)

/** Reads a user's store file directly (read-only, beside the running server), for what only SQLite has. */
export const queryStore = <T>(dataRoot: string, userId: string, sql: string, ...params: Array<unknown>): Array<T> =>
  withStoreFile(dataRoot, userId, { readonly: true }, (db) => db.prepare<Array<unknown>, T>(sql).all(...params))
