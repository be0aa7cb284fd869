import * as NodeFs from "node:fs"

/** A file's size in bytes; 0 when it does not exist. */
export const fileBytes = (path: string) => (NodeFs.existsSync(path) ? NodeFs.statSync(path).size : 0)

/** A SQLite database's size on disk: the file with its WAL and shared-memory files. */
export const sqliteFileBytes = (file: string) => fileBytes(file) + fileBytes(`${file}-wal`) + fileBytes(`${file}-shm`)
