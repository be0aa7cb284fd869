import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import type { FactRow } from "../../../domain/records.js"
import { utcTimestamp } from "../../../util/timestamps.js"
import { forgetFacts } from "./forget.js"
import { FACT_COLUMNS } from "./retrieval.js"


/**
 * Schema of one user's store. Append only; the latest id is STORE_SCHEMA_VERSION.
 * Vector tables are created by the embedder once it knows its dimension.
 */
export const userStoreMigrations = {
  "0001_user_store": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`
      CREATE TABLE sessions (
        session_id TEXT PRIMARY KEY,
        session_time TEXT,
        created_at TEXT NOT NULL
      )`
    yield* sql`
      CREATE TABLE turns (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        turn_id TEXT NOT NULL UNIQUE,
        session_id TEXT NOT NULL REFERENCES sessions (session_id),
        position INTEGER NOT NULL,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        agent_id TEXT,
        run_id TEXT,
        project_id TEXT,
        created_at TEXT NOT NULL,
        UNIQUE (session_id, position)
      )`
    yield* sql`
      CREATE TABLE spans (
        span_id TEXT PRIMARY KEY,
        turn_id TEXT NOT NULL REFERENCES turns (turn_id) ON DELETE CASCADE,
        start_offset INTEGER NOT NULL,
        end_offset INTEGER NOT NULL
      )`
    yield* sql`
      CREATE TABLE facts (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        fact_id TEXT NOT NULL UNIQUE,
        content TEXT NOT NULL,
        kind TEXT NOT NULL DEFAULT 'fact',
        status TEXT NOT NULL DEFAULT 'active',
        session_id TEXT,
        occurred_at TEXT,
        valid_from TEXT,
        valid_until TEXT,
        confidence REAL,
        metadata TEXT NOT NULL DEFAULT '{}',
        agent_id TEXT,
        run_id TEXT,
        project_id TEXT,
        superseded_by TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      )`
    yield* sql`CREATE INDEX facts_by_status ON facts (status, seq)`
    yield* sql`
      CREATE TABLE fact_sources (
        fact_id TEXT NOT NULL REFERENCES facts (fact_id) ON DELETE CASCADE,
        span_id TEXT NOT NULL REFERENCES spans (span_id),
        PRIMARY KEY (fact_id, span_id)
      )`
    yield* sql`
      CREATE TABLE entities (
        entity_id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        normalized_name TEXT NOT NULL,
        profile TEXT,
        profile_stale INTEGER NOT NULL DEFAULT 0,
        updated_at TEXT NOT NULL
      )`
    yield* sql`CREATE INDEX entities_by_name ON entities (normalized_name)`
    yield* sql`
      CREATE TABLE fact_entity_roles (
        fact_id TEXT NOT NULL REFERENCES facts (fact_id) ON DELETE CASCADE,
        entity_id TEXT NOT NULL REFERENCES entities (entity_id),
        role TEXT NOT NULL,
        PRIMARY KEY (fact_id, entity_id, role)
      )`
    yield* sql`
      CREATE TABLE edges (
        edge_id TEXT PRIMARY KEY,
        src_fact_id TEXT NOT NULL REFERENCES facts (fact_id) ON DELETE CASCADE,
        dst_id TEXT NOT NULL,
        edge_type TEXT NOT NULL,
        predicate TEXT,
        confidence REAL,
        metadata TEXT NOT NULL DEFAULT '{}',
        created_at REAL NOT NULL
      )`
    yield* sql`CREATE INDEX edges_by_dst ON edges (dst_id)`
    yield* sql`
      CREATE TABLE events (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        event_id TEXT NOT NULL UNIQUE,
        ts TEXT NOT NULL,
        type TEXT NOT NULL,
        memory_id TEXT,
        session_id TEXT,
        reason TEXT,
        details TEXT NOT NULL DEFAULT '{}'
      )`
    yield* sql`CREATE INDEX events_by_type ON events (type, seq)`
    // Jobs whose writes are committed here, so a job resumed after a crash applies exactly once.
    yield* sql`
      CREATE TABLE applied_jobs (
        job_id TEXT PRIMARY KEY,
        result TEXT NOT NULL,
        applied_at TEXT NOT NULL
      )`
    yield* sql`CREATE VIRTUAL TABLE facts_fts USING fts5 (content, content = 'facts', content_rowid = 'seq', tokenize = 'porter unicode61')`
    yield* sql`CREATE VIRTUAL TABLE turns_fts USING fts5 (content, content = 'turns', content_rowid = 'seq', tokenize = 'porter unicode61')`
    for (const [table, fts] of [["facts", "facts_fts"], ["turns", "turns_fts"]] as const) {
      yield* sql.unsafe(`CREATE TRIGGER ${table}_fts_insert AFTER INSERT ON ${table} BEGIN
        INSERT INTO ${fts} (rowid, content) VALUES (new.seq, new.content); END`)
      yield* sql.unsafe(`CREATE TRIGGER ${table}_fts_delete AFTER DELETE ON ${table} BEGIN
        INSERT INTO ${fts} (${fts}, rowid, content) VALUES ('delete', old.seq, old.content); END`)
      yield* sql.unsafe(`CREATE TRIGGER ${table}_fts_update AFTER UPDATE OF content ON ${table} BEGIN
        INSERT INTO ${fts} (${fts}, rowid, content) VALUES ('delete', old.seq, old.content);
        INSERT INTO ${fts} (rowid, content) VALUES (new.seq, new.content); END`)
    }
  }),
  // Per-term document counts of the indexes, so search can leave out terms too common to rank by;
  // indexes for the time and entity legs.
  "0002_index_vocabulary": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE VIRTUAL TABLE facts_vocab USING fts5vocab (facts_fts, 'row')`
    yield* sql`CREATE VIRTUAL TABLE turns_vocab USING fts5vocab (turns_fts, 'row')`
    // Dates named in a query are looked up as ranges over these.
    yield* sql`CREATE INDEX facts_by_occurred ON facts (occurred_at)`
    yield* sql`CREATE INDEX sessions_by_time ON sessions (session_time)`
    // The entity leg goes from entities to their facts, and one edge further.
    yield* sql`CREATE INDEX roles_by_entity ON fact_entity_roles (entity_id)`
    yield* sql`CREATE INDEX edges_by_src ON edges (src_fact_id)`
  }),
  // Facts about the store itself, such as the embedding model and dimension its vectors have.
  "0003_store_meta": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`
  }),
  // A turn as recorded, kept beside the text shown (and searched) while archived memories' words
  // are elided from it; full-text deletes that erase the words from the index itself. Memories
  // archived before now leave their turns too (their turns' vectors are dropped: no embedder here).
  "0004_forgetting": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`ALTER TABLE turns ADD COLUMN recorded_content TEXT`
    yield* sql`INSERT INTO facts_fts (facts_fts, rank) VALUES ('secure-delete', 1)`
    yield* sql`INSERT INTO turns_fts (turns_fts, rank) VALUES ('secure-delete', 1)`
    // Forgetting goes from a memory to its versions and the profiles citing it, from a turn to the
    // memories taken from it, and from a memory to its events.
    yield* sql`CREATE INDEX facts_by_superseded ON facts (superseded_by) WHERE superseded_by IS NOT NULL`
    yield* sql`CREATE INDEX facts_profiles ON facts (seq) WHERE kind = 'profile'`
    yield* sql`CREATE INDEX spans_by_turn ON spans (turn_id)`
    yield* sql`CREATE INDEX sources_by_span ON fact_sources (span_id)`
    yield* sql`CREATE INDEX events_by_memory ON events (memory_id)`
    const archived = yield* sql<FactRow>`SELECT ${sql.literal(FACT_COLUMNS)} FROM facts f WHERE f.status = 'archived'`
    const now = utcTimestamp(yield* Clock.currentTimeMillis)
    if (archived.length > 0) yield* forgetFacts(sql, "archive", archived, now)
  }),
  // Changes waiting for the webhook receiver, each an audit event of this store. Filled, while
  // webhooks are on, by a trigger each connection creates for itself (see storeFile.ts).
  "0005_webhook_outbox": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`
      CREATE TABLE webhook_outbox (
        event_seq INTEGER PRIMARY KEY,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL DEFAULT 0
      )`
  }),
  // Vectors of another model than the store's, staged while a switch of model is under way: each
  // goes with its row, and when its row's text changes (a forgotten memory's words leave it).
  "0006_staged_vectors": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    for (const [index, table] of [["fact", "facts"], ["turn", "turns"]] as const) {
      yield* sql.unsafe(`CREATE TABLE ${index}_vectors_staged (
        seq INTEGER PRIMARY KEY REFERENCES ${table} (seq) ON DELETE CASCADE,
        model TEXT NOT NULL,
        dimensions INTEGER NOT NULL,
        embedding BLOB NOT NULL
      )`)
      yield* sql.unsafe(`CREATE TRIGGER ${table}_staged_vector_stale AFTER UPDATE OF content ON ${table} BEGIN
        DELETE FROM ${index}_vectors_staged WHERE seq = old.seq; END`)
    }
  }),
  // Each event carries the scope of the write that caused it, so the log narrows as memories do.
  // Events written before then stay unstamped: visible to every scope.
  "0007_event_scope": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    for (const key of ["agent_id", "run_id", "project_id"]) yield* sql.unsafe(`ALTER TABLE events ADD COLUMN ${key} TEXT`)
  })
}
