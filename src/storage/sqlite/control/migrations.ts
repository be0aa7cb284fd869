import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Control-plane schema: jobs, named keys, the request log and lock contention. Append only. */
export const controlMigrations = {
  "0001_control_plane": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`
      CREATE TABLE jobs (
        job_id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        status TEXT NOT NULL,
        user_id TEXT NOT NULL,
        payload TEXT NOT NULL,
        result TEXT,
        error TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        started_at TEXT,
        finished_at TEXT
      )`
    yield* sql`CREATE INDEX jobs_by_status ON jobs (status)`
    yield* sql`CREATE INDEX jobs_by_created ON jobs (created_at)`
    yield* sql`
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        prefix TEXT NOT NULL,
        key_hash TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL,
        last_used_at TEXT,
        revoked_at TEXT
      )`
    yield* sql`
      CREATE TABLE request_log (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        request_id TEXT NOT NULL,
        method TEXT NOT NULL,
        route TEXT NOT NULL,
        status_code INTEGER NOT NULL,
        latency_ms REAL NOT NULL,
        key_name TEXT,
        created_at TEXT NOT NULL
      )`
    yield* sql`
      CREATE TABLE lock_contention (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        count INTEGER NOT NULL,
        last_at TEXT
      )`
  }),
  "0002_job_leases": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // The worker holding a running job: one process holds a data root, so any other holder is gone.
    yield* sql`ALTER TABLE jobs ADD COLUMN lease_owner TEXT`
  }),
  "0003_finished_payloads": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // A finished job keeps no payload (its messages are users' words); those finished before now lose theirs.
    yield* sql`UPDATE jobs SET payload = '{}' WHERE status IN ('succeeded', 'failed')`
  }),
  // Changes that outlive a user's store: an erase's, and the user's undelivered ones before it.
  "0004_webhook_queue": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`
      CREATE TABLE webhook_queue (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id TEXT NOT NULL,
        payload TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL DEFAULT 0,
        held INTEGER NOT NULL
      )`
    yield* sql`CREATE INDEX webhook_queue_by_user ON webhook_queue (user_id, id)`
  }),
  // Which named key made a request: its name alone may be any text, and is not unique.
  "0005_request_log_key_id": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`ALTER TABLE request_log ADD COLUMN key_id TEXT`
  }),
  // Settings of the data root that outlive a process: whether webhooks are on (webhookSwitch.ts).
  "0006_settings": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL)`
  })
}

export const LATEST_CONTROL_MIGRATION = 6
