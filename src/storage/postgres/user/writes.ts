import type { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import type { AuditContext } from "../../../domain/audit.js"
import { entityId, spanId, turnId } from "../../../domain/ids.js"
import type { FactRow, NewEvent, NewFact, Replacement } from "../../../domain/records.js"
import { normalizeName } from "../../../domain/text.js"
import { type KeyedGate, makeKeyedGate } from "../../../util/keyedGate.js"
import { utcTimestamp } from "../../../util/timestamps.js"
import { edgeRowValues, edgeTypeOfRole, entityLinks, eventRowValues, factRowValues, marksProfilesStale } from "../../rowValues.js"
import { planTargets, type SessionWrite, type SessionWritten, settleSession } from "../../sessionWrite.js"
import { UserPostings } from "./postings.js"
import { UserReads } from "./reads.js"
import { byParts, ROWS_PER_INSERT, vectorText } from "./rows.js"

/** The tables that hold a user's data, each keyed by user_id first. */
const USER_TABLES = [
  "applied_jobs", "events", "edges", "fact_entity_roles", "entities", "fact_sources", "fact_postings", "facts", "spans", "turn_postings", "turns", "sessions", "webhook_outbox"
] as const

export const clock = Effect.map(Clock.currentTimeMillis, (millis) => ({ now: utcTimestamp(millis), epochSeconds: millis / 1000 }))

/** Each client's queue of writers per user (see lockedTransaction). */
const writerGates = new WeakMap<SqlClient.SqlClient, KeyedGate>()

const writersOn = (sql: SqlClient.SqlClient) => {
  const known = writerGates.get(sql)
  if (known !== undefined) return known
  const made = makeKeyedGate()
  writerGates.set(sql, made)
  return made
}

/**
 * `work` in one transaction holding the user's write lock, so that writes to one user serialize
 * whichever replica serves them. The lock is waited for holding a pooled connection; writers of
 * one user queue in the process before the transaction takes one, so that one connection at most
 * waits on a user's lock here and a user with many writes in flight cannot take the connections
 * other users' requests need (they would wait for the pool, then get 503).
 */
export const lockedTransaction = <A, E, R>(
  sql: SqlClient.SqlClient,
  userId: string,
  work: (writes: ReturnType<typeof UserWrites>) => Effect.Effect<A, E, R>
) =>
  writersOn(sql)(userId, sql.withTransaction(Effect.zipRight(sql`SELECT pg_advisory_xact_lock(hashtext(${userId}))`, work(UserWrites(sql, userId)))))

/** Writes of one user's data, inside the caller's transaction; every statement names the user. */
export const UserWrites = (sql: SqlClient.SqlClient, userId: string) => {
  const edge = (srcFactId: string, dstId: string, edgeType: string, predicate: string | null, epochSeconds: number) => ({
    user_id: userId,
    ...edgeRowValues(srcFactId, dstId, edgeType, predicate, epochSeconds)
  })

  const postings = UserPostings(sql, userId)

  /**
   * Keeps the user's count of indexed documents and their lexemes, which the lexical legs' bm25
   * needs (the collection's size and mean length), in the write's own transaction.
   */
  const countIndexed = (table: "facts" | "turns", documents: number, lexemes: number) =>
    table === "facts"
      ? sql`UPDATE users SET facts_indexed = facts_indexed + ${documents}, facts_lexemes = facts_lexemes + ${lexemes} WHERE user_id = ${userId}`
      : sql`UPDATE users SET turns_indexed = turns_indexed + ${documents}, turns_lexemes = turns_lexemes + ${lexemes} WHERE user_id = ${userId}`

  /** The postings and the counts of indexed documents and lexemes built again from the rows themselves, after a bulk copy. */
  const reindex = Effect.zipRight(Effect.all([postings.rebuild("facts"), postings.rebuild("turns")]), sql`UPDATE users SET
      facts_indexed = (SELECT count(*) FROM facts WHERE user_id = ${userId}),
      facts_lexemes = (SELECT coalesce(sum(length(search)), 0) FROM facts WHERE user_id = ${userId}),
      turns_indexed = (SELECT count(*) FROM turns WHERE user_id = ${userId}),
      turns_lexemes = (SELECT coalesce(sum(length(search)), 0) FROM turns WHERE user_id = ${userId})
    WHERE user_id = ${userId}`)

  /** Every row of the user, the user's own last; whether there was a user. */
  const eraseUser = Effect.gen(function*() {
    for (const table of USER_TABLES) yield* sql`DELETE FROM ${sql(table)} WHERE user_id = ${userId}`
    const removed = yield* sql<{ readonly user_id: string }>`DELETE FROM users WHERE user_id = ${userId} RETURNING user_id`
    return removed.length > 0
  })

  const ensureUser = (now: string) => sql`INSERT INTO users (user_id, created_at) VALUES (${userId}, ${now}) ON CONFLICT (user_id) DO NOTHING`

  const appendTurns = (write: SessionWrite, now: string) =>
    Effect.gen(function*() {
      // The user's row, the session's and the session's last position, in one statement: the
      // inserts read no turn, and no key refers to either row.
      const [last] = yield* sql<{ readonly position: number | null }>`
        WITH known_user AS (${ensureUser(now)}),
          session AS (INSERT INTO sessions (user_id, session_id, session_time, created_at) VALUES (${userId}, ${write.sessionId}, ${write.sessionTime}, ${now})
          ON CONFLICT (user_id, session_id) DO NOTHING)
        SELECT max(position) AS position FROM turns WHERE user_id = ${userId} AND session_id = ${write.sessionId}`
      const first = (last?.position ?? 0) + 1
      if (write.turns.length === 0) return { firstPosition: first, seqs: [] as ReadonlyArray<number> }
      const rows = write.turns.map((turn, i) => ({
        user_id: userId,
        turn_id: turnId(write.sessionId, first + i),
        session_id: write.sessionId,
        position: first + i,
        role: turn.role,
        content: turn.content,
        ...write.scope,
        created_at: now
      }))
      // Each turn's span beside the turns, in their statement.
      const spansOf = (part: ReadonlyArray<(typeof rows)[number]>) => sql`spans_written AS (INSERT INTO spans ${
        sql.insert(part.map((row) => ({ user_id: userId, span_id: spanId(write.sessionId, row.position), turn_id: row.turn_id, start_offset: 0, end_offset: row.content.length })))
      })`
      const inserted = yield* byParts(rows, (part) =>
        postings.insert<{ readonly position: number }>("turns", sql`INSERT INTO turns ${sql.insert(part)}`, "position", [spansOf(part)]), ROWS_PER_INSERT)
      return { firstPosition: first, seqs: [...inserted].sort((a, b) => a.position - b.position).map((row) => row.seq) }
    })

  const insertFacts = (facts: ReadonlyArray<NewFact>, now: string, epochSeconds: number) =>
    Effect.gen(function*() {
      if (facts.length === 0) return [] as ReadonlyArray<number>
      const inserted = yield* byParts(facts, (part) =>
        postings.insert<{ readonly fact_id: string }>(
          "facts",
          sql`INSERT INTO facts ${sql.insert(part.map((fact) => ({ user_id: userId, ...factRowValues(fact, now) })))}`,
          "fact_id"
        ), ROWS_PER_INSERT)
      const seqs = new Map(inserted.map((row) => [row.fact_id, row.seq]))
      const sources = facts.flatMap((fact) => [...new Set(fact.spanIds)].map((span) => ({ user_id: userId, fact_id: fact.factId, span_id: span })))
      yield* byParts(sources, (part) => sql`INSERT INTO fact_sources ${sql.insert(part)} ON CONFLICT DO NOTHING`, ROWS_PER_INSERT)
      const links = facts.map((fact) => ({ fact, ...entityLinks(fact) }))
      // One row per entity: its first name, stale when any fact naming it marks profiles stale.
      const entities = new Map<string, { user_id: string; entity_id: string; name: string; normalized_name: string; profile_stale: boolean; updated_at: string }>()
      for (const { entities: named, fact } of links) {
        const stale = marksProfilesStale(fact)
        for (const [id, { name }] of named) {
          const known = entities.get(id)
          if (known === undefined) entities.set(id, { user_id: userId, entity_id: id, name, normalized_name: normalizeName(name), profile_stale: stale, updated_at: now })
          else known.profile_stale = known.profile_stale || stale
        }
      }
      const roles = links.flatMap(({ fact, roles: named }) => named.map((entity) => ({ user_id: userId, fact_id: fact.factId, entity_id: entityId(entity.name), role: entity.role })))
      const edges = links.flatMap(({ entities: named, fact }) =>
        [...named].map(([id, { role }]) => edge(fact.factId, id, edgeTypeOfRole(role), fact.predicate === "" ? null : fact.predicate, epochSeconds)))
      yield* byParts([...entities.values()], (part) =>
        sql`INSERT INTO entities ${sql.insert(part)}
            ON CONFLICT (user_id, entity_id) DO UPDATE SET profile_stale = entities.profile_stale OR excluded.profile_stale, updated_at = excluded.updated_at`, ROWS_PER_INSERT)
      yield* byParts(roles, (part) => sql`INSERT INTO fact_entity_roles ${sql.insert(part)} ON CONFLICT DO NOTHING`, ROWS_PER_INSERT)
      yield* byParts(edges, (part) => sql`INSERT INTO edges ${sql.insert(part)}`, ROWS_PER_INSERT)
      return facts.map((fact) => seqs.get(fact.factId)!)
    })

  const closeFact = (old: Pick<FactRow, "fact_id" | "kind">, replacement: Replacement) =>
    Effect.gen(function*() {
      yield* sql`UPDATE facts SET status = 'superseded', valid_until = ${replacement.validUntil}, superseded_by = ${replacement.newFactId},
                 updated_at = ${replacement.now} WHERE user_id = ${userId} AND fact_id = ${old.fact_id}`
      yield* sql`INSERT INTO edges ${sql.insert(edge(replacement.newFactId, old.fact_id, "SUPERSEDES", "supersedes", replacement.epochSeconds))}`
      if (marksProfilesStale(old)) {
        yield* sql`UPDATE entities SET profile_stale = TRUE, updated_at = ${replacement.now}
                   WHERE user_id = ${userId} AND entity_id IN (SELECT entity_id FROM fact_entity_roles WHERE user_id = ${userId} AND fact_id = ${old.fact_id})`
      }
    })

  const addSources = (factId: string, spanIds: ReadonlyArray<string>, now: string) =>
    Effect.gen(function*() {
      if (spanIds.length === 0) return
      yield* sql`INSERT INTO fact_sources ${sql.insert(spanIds.map((span) => ({ user_id: userId, fact_id: factId, span_id: span })))} ON CONFLICT DO NOTHING`
      yield* sql`UPDATE facts SET updated_at = ${now} WHERE user_id = ${userId} AND fact_id = ${factId}`
    })

  const insertEvents = (events: ReadonlyArray<NewEvent>, audit: AuditContext, ts: string) =>
    Effect.asVoid(byParts(events, (part) => sql`INSERT INTO events ${
      sql.insert(part.map((event) => ({ user_id: userId, ...eventRowValues(event, audit, ts) })))
    }`, ROWS_PER_INSERT))

  /**
   * Stores vectors of rows just written. The user's vector space is set by the first vectors
   * written; vectors of another model or dimension are not mixed in (the vector leg then reports it).
   */
  const storeVectors = (table: "facts" | "turns", model: string | undefined, rows: ReadonlyArray<{ readonly seq: number; readonly vector: Float32Array }>) =>
    Effect.gen(function*() {
      if (model === undefined || rows.length === 0) return
      const dimensions = rows[0]!.vector.length
      const [space] = yield* sql<{ readonly embedding_model: string | null; readonly embedding_dimensions: number | null }>`
        SELECT embedding_model, embedding_dimensions FROM users WHERE user_id = ${userId}`
      if (space?.embedding_model === null || space?.embedding_model === undefined) {
        yield* sql`UPDATE users SET embedding_model = ${model}, embedding_dimensions = ${dimensions} WHERE user_id = ${userId}`
      } else if (space.embedding_model !== model || space.embedding_dimensions !== dimensions) {
        return yield* Effect.logWarning("vectors not stored: the store holds another embedding model or dimension")
      }
      for (const { seq, vector } of rows) {
        yield* sql`UPDATE ${sql(table)} SET embedding = ${vectorText(vector)}::vector WHERE user_id = ${userId} AND seq = ${seq}`
      }
      yield* sql`UPDATE users SET ${sql.literal(`${table}_vectors_added = ${table}_vectors_added`)} + ${rows.length} WHERE user_id = ${userId}`
    })

  const insertFact = (fact: NewFact, now: string, epochSeconds: number) => insertFacts([fact], now, epochSeconds)

  /** A session's turns and settled plans, each change with its audit event. */
  const writeSession = (write: SessionWrite, now: string, epochSeconds: number) =>
    Effect.gen(function*() {
      const { firstPosition, seqs } = yield* appendTurns(write, now)
      yield* storeVectors("turns", write.embeddingModel, (write.turnVectors ?? []).map((vector, i) => ({ seq: seqs[i]!, vector })))
      const targetIds = planTargets(write)
      // A session with no replacement or merge (turns alone, or only new facts) reads no fact.
      const targets = targetIds.length === 0 ? [] : yield* UserReads(sql, userId).facts(targetIds)
      const settled = settleSession(write, { firstPosition, targets: new Map(targets.map((row) => [row.fact_id, row])), now, epochSeconds })
      const factSeqs = yield* insertFacts(settled.added.map(({ fact }) => fact), now, epochSeconds)
      for (const { factId, spanIds } of settled.merges) yield* addSources(factId, spanIds, now)
      for (const { old, replacement } of settled.closes) yield* closeFact(old, replacement)
      yield* insertEvents(settled.events, write.audit, now)
      const factVectors = settled.added.flatMap(({ vector }, i) => vector === undefined ? [] : [{ seq: factSeqs[i]!, vector }])
      yield* storeVectors("facts", write.embeddingModel, factVectors)
      return { turnsWritten: write.turns.length, facts: settled.facts } satisfies SessionWritten
    })

  return { ensureUser, writeSession, insertFact, closeFact, insertEvents, countIndexed, reindex, eraseUser, storeVectors }
}
