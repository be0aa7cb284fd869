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

/** Runs SQL on a user's store file beside the running server (the store must exist). */
export const execStore = (dataRoot: string, userId: string, sql: string) => {
  const db = new Database(NodePath.join(dataRoot, userId, "store.db"))
  try {
    db.exec(sql)
  } finally {
    db.close()
  }
}

export interface SeedFact {
  readonly fact_id: string
  readonly content: string
  readonly kind?: string
  readonly status?: string
  readonly valid_until?: string | null
  readonly agent_id?: string | null
  readonly project_id?: string | null
  readonly session_id?: string | null
}

/**
 * Writes facts into a user's store file beside the running server, as extraction will: the
 * store must exist (an ingest creates it).
 */
export const seedFacts = (dataRoot: string, userId: string, facts: ReadonlyArray<SeedFact>) => {
  const db = new Database(NodePath.join(dataRoot, userId, "store.db"))
  try {
    const insert = db.prepare(`INSERT INTO facts (fact_id, content, kind, status, session_id, occurred_at, valid_from, valid_until,
      confidence, metadata, agent_id, project_id, created_at, updated_at)
      VALUES (@fact_id, @content, @kind, @status, @session_id, '2024-03-05', '2024-03-05', @valid_until, 0.9, '{"support_text":"seed"}',
      @agent_id, @project_id, '2026-01-01T00:00:00.000000+00:00', '2026-01-01T00:00:00.000000+00:00')`)
    for (const fact of facts) {
      insert.run({ kind: "fact", status: "active", valid_until: null, agent_id: null, project_id: null, session_id: "s1", ...fact })
    }
  } finally {
    db.close()
  }
}
