import type { Effect } from "effect"
import type { Deployment } from "./server.js"
import { postgresControlRows, postgresUserRows } from "./userRows/postgres.js"
import { sqliteControlRows, sqliteUserRows } from "./userRows/sqlite.js"

/** The tables of a user's data that both backends hold with the same columns (PostgreSQL's also carry user_id). */
export type UserTable = "sessions" | "turns" | "spans" | "facts" | "fact_sources" | "entities" | "fact_entity_roles" | "edges" | "events" | "webhook_outbox"

/** A row as SQLite gives it: text, numbers (booleans as 0 or 1) and nulls. */
export type Row = Readonly<Record<string, unknown>>

export interface RowQuery {
  readonly columns: ReadonlyArray<string>
  /** Columns and the values they equal. */
  readonly where?: Row
  readonly orderBy?: string
}

/**
 * A user's rows read and written beside the running server, the same on either backend: for
 * tests that set up data the API cannot (fixed ids, statuses, edges) or look at what it does not
 * show (sources, roles, vectors).
 */
export interface UserRows {
  readonly select: (userId: string, table: UserTable, query: RowQuery) => Effect.Effect<ReadonlyArray<Row>>
  readonly count: (userId: string, table: UserTable, where?: Row) => Effect.Effect<number>
  /** Adds rows as the server's own writes would (indexes included); the user's store must exist (an ingest makes it). */
  readonly insert: (userId: string, table: UserTable, rows: ReadonlyArray<Row>) => Effect.Effect<void>
  /** How many of a user's turns or facts the lexical index finds for a word. */
  readonly matching: (userId: string, table: "turns" | "facts", word: string) => Effect.Effect<number>
  /** Every user the backend holds data of. */
  readonly users: Effect.Effect<ReadonlyArray<string>>
  /** The model and dimension of the user's vectors, none before the first. */
  readonly vectorSpace: (userId: string) => Effect.Effect<{ readonly model: string; readonly dimensions: number } | undefined>
  /** The vectors of a user's turns or facts with their texts, in the order written. */
  readonly vectors: (userId: string, table: "turns" | "facts") => Effect.Effect<ReadonlyArray<{ readonly content: string; readonly vector: Float32Array }>>
}

/** The rows of the deployment's backend. */
export const userRows = (deployment: Deployment): UserRows =>
  deployment.databaseUrl === null ? sqliteUserRows(deployment.dataRoot) : postgresUserRows(deployment.databaseUrl)

/** The control plane's tables the fixtures reach, with the same columns on both backends. */
export type ControlTable = "jobs" | "api_keys" | "webhook_queue" | "request_log"

/**
 * The control plane's rows read and written beside the service, the same on either backend: for
 * tests that set up what a process left behind (a job it accepted, or began, before it died),
 * or look at what the API does not show (a job's payload).
 * The control plane must exist: a service started on the deployment makes it.
 */
export interface ControlRows {
  readonly select: (table: ControlTable, query: RowQuery) => Effect.Effect<ReadonlyArray<Row>>
  readonly insert: (table: ControlTable, rows: ReadonlyArray<Row>) => Effect.Effect<void>
  /** Sets columns of the rows whose columns equal `where`. */
  readonly update: (table: ControlTable, set: Row, where: Row) => Effect.Effect<void>
  readonly count: (table: ControlTable, where?: Row) => Effect.Effect<number>
}

/** The control plane of the deployment's backend. */
export const controlRows = (deployment: Deployment): ControlRows =>
  deployment.databaseUrl === null ? sqliteControlRows(deployment.dataRoot) : postgresControlRows(deployment.databaseUrl)

export interface SeedFact {
  readonly fact_id: string
  readonly content: string
  readonly kind?: string
  readonly status?: string
  readonly superseded_by?: string | null
  readonly valid_until?: string | null
  readonly agent_id?: string | null
  readonly project_id?: string | null
  readonly session_id?: string | null
  readonly occurred_at?: string | null
}

/** What a seeded fact holds unless told otherwise, as the API shows it. */
export const SEEDED_FACT = {
  kind: "fact",
  status: "active",
  session_id: "s1",
  occurred_at: "2024-03-05",
  valid_from: "2024-03-05",
  valid_until: null,
  confidence: 0.9,
  agent_id: null,
  project_id: null
} as const

/** Writes facts for a user as extraction would (SEEDED_FACT unless told). */
export const seedFacts = (server: Deployment, userId: string, facts: ReadonlyArray<SeedFact>) =>
  userRows(server).insert(userId, "facts", facts.map((fact) => ({
    ...SEEDED_FACT,
    metadata: `{"support_text":"seed"}`,
    created_at: "2026-01-01T00:00:00.000000+00:00",
    updated_at: "2026-01-01T00:00:00.000000+00:00",
    ...fact
  })))

export interface SeedEntity {
  readonly entity_id: string
  readonly name: string
  readonly normalized_name: string
  /** 1 when the entity's profile is to be rebuilt. */
  readonly profile_stale?: 0 | 1
}

/** Writes entities for a user, their profiles not stale unless told. */
export const seedEntities = (server: Deployment, userId: string, entities: ReadonlyArray<SeedEntity>) =>
  userRows(server).insert(userId, "entities", entities.map((entity) => ({ profile_stale: 0, updated_at: "x", ...entity })))
