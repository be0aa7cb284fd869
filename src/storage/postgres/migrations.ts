import type { SqlClient, SqlError } from "@effect/sql"
import { Effect } from "effect"
import type { FactRow } from "../../domain/records.js"
import { forgetFacts } from "./user/forget.js"
import { FACT_COLUMNS } from "./user/rows.js"
import { clock, UserWrites } from "./user/writes.js"

/**
 * The schema, one migration a step, applied in order under an advisory lock so that replicas
 * starting together migrate once. Every user table is keyed by `user_id` first and every
 * query of it names one user: the shape a PostgreSQL distributed by tenant shards by `user_id`.
 * The control tables (jobs, keys, request log) are apart.
 */
interface Migration {
  readonly id: number
  readonly name: string
  readonly statements: ReadonlyArray<string>
  /** What the migration does to the data once its statements ran, where SQL alone cannot. */
  readonly after?: (sql: SqlClient.SqlClient) => Effect.Effect<void, SqlError.SqlError>
}

/**
 * Memories archived before forgetting reached the turns leave their turns too, user by user
 * (their turns' vectors are dropped: no embedder runs here).
 */
const forgetArchived = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    const { now } = yield* clock
    const users = yield* sql<{ readonly user_id: string }>`SELECT DISTINCT user_id FROM facts WHERE status = 'archived' ORDER BY user_id`
    for (const { user_id: userId } of users) {
      const archived = yield* sql<FactRow>`SELECT ${sql.literal(FACT_COLUMNS)} FROM facts f WHERE f.user_id = ${userId} AND f.status = 'archived'`
      yield* forgetFacts(sql, userId, UserWrites(sql, userId), "archive", archived, now)
    }
  })

const MIGRATIONS: ReadonlyArray<Migration> = [{
  id: 1,
  name: "user_data_and_control_plane",
  statements: [
    `CREATE TABLE users (user_id text PRIMARY KEY, created_at text NOT NULL, embedding_model text, embedding_dimensions integer,
      facts_indexed bigint NOT NULL DEFAULT 0, facts_lexemes bigint NOT NULL DEFAULT 0, turns_indexed bigint NOT NULL DEFAULT 0, turns_lexemes bigint NOT NULL DEFAULT 0)`,
    `CREATE TABLE sessions (user_id text NOT NULL, session_id text NOT NULL, session_time text, created_at text NOT NULL,
      PRIMARY KEY (user_id, session_id))`,
    `CREATE TABLE turns (user_id text NOT NULL, seq bigint GENERATED ALWAYS AS IDENTITY, turn_id text NOT NULL, session_id text NOT NULL,
      position integer NOT NULL, role text NOT NULL, content text NOT NULL, agent_id text, run_id text, project_id text, created_at text NOT NULL,
      search tsvector GENERATED ALWAYS AS (to_tsvector('english', content)) STORED, embedding vector,
      PRIMARY KEY (user_id, seq), UNIQUE (user_id, turn_id), UNIQUE (user_id, session_id, position))`,
    `CREATE INDEX turns_search ON turns USING gin (search)`,
    `CREATE TABLE spans (user_id text NOT NULL, span_id text NOT NULL, turn_id text NOT NULL, start_offset integer NOT NULL, end_offset integer NOT NULL,
      PRIMARY KEY (user_id, span_id))`,
    `CREATE TABLE facts (user_id text NOT NULL, seq bigint GENERATED ALWAYS AS IDENTITY, fact_id text NOT NULL, content text NOT NULL, kind text NOT NULL,
      status text NOT NULL, session_id text, occurred_at text, valid_from text, valid_until text, confidence double precision, metadata text NOT NULL,
      agent_id text, run_id text, project_id text, superseded_by text, created_at text NOT NULL, updated_at text NOT NULL,
      search tsvector GENERATED ALWAYS AS (to_tsvector('english', content)) STORED, embedding vector,
      PRIMARY KEY (user_id, seq), UNIQUE (user_id, fact_id))`,
    `CREATE INDEX facts_search ON facts USING gin (search)`,
    `CREATE INDEX facts_by_status ON facts (user_id, status, seq)`,
    `CREATE INDEX facts_by_occurred ON facts (user_id, occurred_at, seq)`,
    `CREATE TABLE fact_sources (user_id text NOT NULL, fact_id text NOT NULL, span_id text NOT NULL, PRIMARY KEY (user_id, fact_id, span_id))`,
    `CREATE TABLE entities (user_id text NOT NULL, entity_id text NOT NULL, seq bigint GENERATED ALWAYS AS IDENTITY, name text NOT NULL,
      normalized_name text NOT NULL, profile_stale boolean NOT NULL, profile text, updated_at text NOT NULL, PRIMARY KEY (user_id, entity_id))`,
    `CREATE INDEX entities_by_name ON entities (user_id, normalized_name)`,
    `CREATE TABLE fact_entity_roles (user_id text NOT NULL, fact_id text NOT NULL, entity_id text NOT NULL, role text NOT NULL,
      PRIMARY KEY (user_id, fact_id, entity_id, role))`,
    `CREATE INDEX roles_by_entity ON fact_entity_roles (user_id, entity_id)`,
    `CREATE TABLE edges (user_id text NOT NULL, edge_id text NOT NULL, src_fact_id text NOT NULL, dst_id text NOT NULL, edge_type text NOT NULL,
      predicate text, confidence double precision, metadata text NOT NULL DEFAULT '{}', created_at double precision NOT NULL,
      PRIMARY KEY (user_id, edge_id))`,
    `CREATE INDEX edges_by_src ON edges (user_id, src_fact_id)`,
    `CREATE INDEX edges_by_dst ON edges (user_id, dst_id)`,
    `CREATE TABLE events (user_id text NOT NULL, seq bigint GENERATED ALWAYS AS IDENTITY, event_id text NOT NULL, ts text NOT NULL, type text NOT NULL,
      memory_id text, session_id text, reason text, details text NOT NULL, PRIMARY KEY (user_id, seq))`,
    `CREATE TABLE applied_jobs (user_id text NOT NULL, job_id text NOT NULL, result text NOT NULL, applied_at text NOT NULL, PRIMARY KEY (user_id, job_id))`,
    `CREATE TABLE jobs (job_id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY, kind text NOT NULL, status text NOT NULL, user_id text NOT NULL,
      payload text NOT NULL, result text, error text, created_at text NOT NULL, started_at text, finished_at text, attempts integer NOT NULL DEFAULT 0)`,
    `CREATE INDEX jobs_by_status ON jobs (status, created_at, seq)`,
    `CREATE TABLE api_keys (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY, name text NOT NULL, prefix text NOT NULL, key_hash text NOT NULL UNIQUE,
      created_at text NOT NULL, last_used_at text, revoked_at text)`,
    `CREATE TABLE request_log (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, request_id text NOT NULL, method text NOT NULL, route text NOT NULL,
      status_code integer NOT NULL, latency_ms double precision NOT NULL, key_name text, created_at text NOT NULL)`
  ]
}, {
  id: 2,
  name: "job_leases",
  statements: [
    // A running job belongs to its lease holder until the lease lapses, by the database's clock.
    `ALTER TABLE jobs ADD COLUMN lease_owner text, ADD COLUMN lease_expires_at timestamptz`,
    `CREATE INDEX jobs_unfinished ON jobs (created_at, seq) WHERE status IN ('pending', 'running')`
  ]
}, {
  id: 3,
  name: "vector_bits",
  statements: [
    // Each replica keeps the bits of a user's vectors in memory; the counters tell it, in one read,
    // whether its copy is current, and the generation whether the user was erased and begun again.
    `ALTER TABLE users ADD COLUMN generation uuid NOT NULL DEFAULT gen_random_uuid(),
      ADD COLUMN facts_vectors_added bigint NOT NULL DEFAULT 0, ADD COLUMN facts_vectors_removed bigint NOT NULL DEFAULT 0,
      ADD COLUMN turns_vectors_added bigint NOT NULL DEFAULT 0, ADD COLUMN turns_vectors_removed bigint NOT NULL DEFAULT 0`,
    // A vector's sign bits, stored inline (the vector itself is stored out of line): what a replica loads.
    `ALTER TABLE facts ADD COLUMN embedding_bits bit varying GENERATED ALWAYS AS (binary_quantize(embedding)) STORED`,
    `ALTER TABLE turns ADD COLUMN embedding_bits bit varying GENERATED ALWAYS AS (binary_quantize(embedding)) STORED`
  ]
}, {
  id: 4,
  name: "postings",
  statements: [
    // Each row's lexemes, one posting each with its frequency and the row's length: bm25 reads them
    // from the index alone, where a GIN index would send it to every matching row's tsvector.
    ...(["fact", "turn"] as const).flatMap((kind) => [
      `CREATE TABLE ${kind}_postings (user_id text NOT NULL, lexeme text NOT NULL, seq bigint NOT NULL, frequency integer NOT NULL,
        document_length integer NOT NULL, PRIMARY KEY (user_id, lexeme, seq) INCLUDE (frequency, document_length))`,
      `INSERT INTO ${kind}_postings (user_id, lexeme, seq, frequency, document_length)
        SELECT d.user_id, u.lexeme, d.seq, cardinality(u.positions), length(d.search) FROM ${kind}s d, unnest(d.search) AS u`,
      `DROP INDEX ${kind}s_search`,
      // Statistics now, so that the first searches plan on the index rather than on a guess.
      `ANALYZE ${kind}_postings`
    ])
  ]
}, {
  id: 5,
  name: "forgetting",
  statements: [
    // A turn as recorded, kept beside the text shown (and searched) while archived memories' words are elided from it.
    `ALTER TABLE turns ADD COLUMN recorded_content text`,
    // Forgetting goes from a memory to its versions and the profiles citing it, from a turn to the
    // memories taken from it, and from a memory to its events.
    `CREATE INDEX facts_by_superseded ON facts (user_id, superseded_by) WHERE superseded_by IS NOT NULL`,
    `CREATE INDEX facts_profiles ON facts (user_id, seq) WHERE kind = 'profile'`,
    `CREATE INDEX spans_by_turn ON spans (user_id, turn_id)`,
    `CREATE INDEX sources_by_span ON fact_sources (user_id, span_id)`,
    `CREATE INDEX events_by_memory ON events (user_id, memory_id)`,
    // A finished job keeps no payload (its messages are users' words); those finished before now lose theirs.
    `UPDATE jobs SET payload = '{}' WHERE status IN ('succeeded', 'failed')`
  ],
  after: forgetArchived
}, {
  id: 6,
  name: "webhook_outbox",
  statements: [
    // Changes waiting for the webhook receiver, each an audit event; filled by a trigger that
    // exists while webhooks are on (see webhookTrigger.ts).
    `CREATE TABLE webhook_outbox (user_id text NOT NULL, event_seq bigint NOT NULL, attempts integer NOT NULL DEFAULT 0,
      next_attempt_at bigint NOT NULL DEFAULT 0, PRIMARY KEY (user_id, event_seq))`,
    `CREATE FUNCTION webhook_outbox_fill() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO webhook_outbox (user_id, event_seq) VALUES (NEW.user_id, NEW.seq); RETURN NULL; END $$`,
    // Changes that outlive a user's data: an erase's, and the user's undelivered ones before it.
    `CREATE TABLE webhook_queue (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, user_id text NOT NULL, payload text NOT NULL,
      attempts integer NOT NULL DEFAULT 0, next_attempt_at bigint NOT NULL DEFAULT 0, held integer NOT NULL)`,
    `CREATE INDEX webhook_queue_by_user ON webhook_queue (user_id, id)`
  ]
}, {
  id: 7,
  name: "staged_vectors",
  statements: [
    // Vectors of another model than the user's, staged while a switch of model is under way: each
    // goes with its row, and when its row's text changes (a forgotten memory's words leave it).
    ...(["fact", "turn"] as const).map((index) =>
      `CREATE TABLE ${index}_vectors_staged (user_id text NOT NULL, seq bigint NOT NULL, model text NOT NULL, dimensions integer NOT NULL,
        embedding vector NOT NULL, PRIMARY KEY (user_id, seq), FOREIGN KEY (user_id, seq) REFERENCES ${index}s (user_id, seq) ON DELETE CASCADE)`),
    `CREATE FUNCTION staged_vector_stale() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN EXECUTE format('DELETE FROM %I WHERE user_id = $1 AND seq = $2', TG_ARGV[0]) USING OLD.user_id, OLD.seq; RETURN NULL; END $$`,
    ...(["fact", "turn"] as const).map((index) =>
      `CREATE TRIGGER ${index}s_staged_vector_stale AFTER UPDATE OF content ON ${index}s FOR EACH ROW
        WHEN (OLD.content IS DISTINCT FROM NEW.content) EXECUTE FUNCTION staged_vector_stale('${index}_vectors_staged')`)
  ]
}, {
  id: 8,
  name: "event_scope",
  // Each event carries the scope of the write that caused it, so the log narrows as memories do.
  // Events written before then stay unstamped: visible to every scope.
  statements: [`ALTER TABLE events ADD COLUMN agent_id text, ADD COLUMN run_id text, ADD COLUMN project_id text`]
}, {
  id: 9,
  name: "request_log_key_id",
  // Which named key made a request: its name alone may be any text, and is not unique.
  statements: [`ALTER TABLE request_log ADD COLUMN key_id text`]
}]

/** The newest migration this build knows. */
export const LATEST_MIGRATION = MIGRATIONS[MIGRATIONS.length - 1]!.id

/** A fixed key for the advisory lock that serializes migrations across replicas. */
const MIGRATION_LOCK = 7_300_021

/** The newest migration applied to the database. */
export const appliedMigration = (sql: SqlClient.SqlClient) =>
  Effect.map(sql<{ readonly latest: number | null }>`SELECT max(id) AS latest FROM schema_migrations`, (rows) => rows[0]?.latest ?? 0)

/**
 * Creates the vector extension when missing and applies the migrations not yet applied, in one
 * transaction that holds the migration lock: a replica starting meanwhile waits, then finds
 * nothing left to do. Answers the newest migration the database had before.
 */
export const migrate = (sql: SqlClient.SqlClient) =>
  sql.withTransaction(Effect.gen(function*() {
    // A transaction holds one connection: the lock, the checks and the DDL all run on it.
    yield* sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`
    yield* sql`CREATE EXTENSION IF NOT EXISTS vector`
    yield* sql`CREATE TABLE IF NOT EXISTS schema_migrations (id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`
    const applied = yield* appliedMigration(sql)
    for (const migration of MIGRATIONS) {
      if (migration.id <= applied) continue
      for (const statement of migration.statements) yield* sql.unsafe(statement)
      if (migration.after !== undefined) yield* migration.after(sql)
      yield* sql`INSERT INTO schema_migrations (id, name) VALUES (${migration.id}, ${migration.name})`
    }
    return applied
  }))
