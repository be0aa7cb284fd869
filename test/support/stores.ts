import Database from "better-sqlite3"
import * as NodePath from "node:path"

/** Reads a user's store file directly (read-only, beside the running server, as WAL allows). */
export const queryStore = <T>(dataRoot: string, userId: string, sql: string, ...params: Array<unknown>): Array<T> => {
  const db = new Database(NodePath.join(dataRoot, userId, "store.db"), { readonly: true })
  try {
    return db.prepare(sql).all(...params) as Array<T>
  } finally {
    db.close()
  }
}
