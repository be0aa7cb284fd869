import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { FactRow } from "../../../domain/records.js"
import { NOTHING_ERASED, profilesCiting, forgottenWords, rewriteTurns, scrubbedEvent, scrubbedMetadata, type StoredTurnText, type TurnLink } from "../../forgetting.js"
import { UserPostings } from "./postings.js"
import { chunks } from "../../transfer/chunks.js"
import { byParts, FACT_COLUMNS, inList } from "./rows.js"
import type { UserWrites } from "./writes.js"

// Archiving and purging inside the caller's unit of work: the memories change, and so do the
// turns they were taken from (storage/forgetting.ts decides how).

/** Facts `f` joined to the turns `t` they were taken from. */
const LINKS = `FROM fact_sources fs JOIN facts f ON f.user_id = fs.user_id AND f.fact_id = fs.fact_id
  JOIN spans sp ON sp.user_id = fs.user_id AND sp.span_id = fs.span_id JOIN turns t ON t.user_id = sp.user_id AND t.turn_id = sp.turn_id`

/** Turns rewritten per statement, their texts sent as one JSON document. */
const REWRITES_PER_STATEMENT = 1_000

/** The statements of the facts, each linked to a turn it came from. */
const sourcesOf = (sql: SqlClient.SqlClient, userId: string, factIds: ReadonlyArray<string>) =>
  byParts(factIds, (part) =>
    sql<TurnLink>`SELECT DISTINCT t.seq, f.content AS statement ${sql.literal(LINKS)} WHERE fs.user_id = ${userId} AND ${inList(sql, "fs.fact_id", part)}`)

const turnTexts = (sql: SqlClient.SqlClient, userId: string, seqs: ReadonlyArray<number>) =>
  byParts(seqs, (part) =>
    sql<StoredTurnText & { readonly embedded: boolean }>`
      SELECT seq, content, recorded_content, embedding IS NOT NULL AS embedded FROM turns WHERE user_id = ${userId} AND ${inList(sql, "seq", part)}`)

/**
 * What forgetting a memory takes with it: the memory, every version it superseded, and every
 * profile that cites any of them.
 */
export const forgottenWith = (sql: SqlClient.SqlClient, userId: string, memoryId: string) =>
  Effect.gen(function*() {
    const versions = yield* sql<FactRow>`
      WITH RECURSIVE chain (fact_id) AS (
        SELECT ${memoryId}::text UNION SELECT f.fact_id FROM facts f JOIN chain c ON f.user_id = ${userId} AND f.superseded_by = c.fact_id)
      SELECT ${sql.literal(FACT_COLUMNS)} FROM facts f WHERE f.user_id = ${userId} AND f.fact_id IN (SELECT fact_id FROM chain) ORDER BY f.seq`
    const ids = new Set(versions.map((fact) => fact.fact_id))
    const profiles = yield* sql<FactRow>`SELECT ${sql.literal(FACT_COLUMNS)} FROM facts f WHERE f.user_id = ${userId} AND f.kind = 'profile' ORDER BY f.seq`
    return [...versions, ...profilesCiting(profiles, ids)]
  })

/**
 * Archives (status `archived`, records kept) or purges (rows erased) the facts, and rewrites the
 * turns they came from: a purged memory's words redacted from the turn as recorded, every
 * archived memory's words elided from the turn as shown, each changed turn's postings following
 * it and its vector dropped. Other memories' support texts and, on purge, the events about the
 * purged ones lose the words too. Answers the turns to embed again, and on purge the words taken
 * out (for copies held elsewhere).
 */
export const forgetFacts = (
  sql: SqlClient.SqlClient,
  userId: string,
  writes: ReturnType<typeof UserWrites>,
  mode: "archive" | "purge",
  facts: ReadonlyArray<FactRow>,
  now: string
) =>
  Effect.gen(function*() {
    const ids = facts.map((fact) => fact.fact_id)
    const sources = yield* sourcesOf(sql, userId, ids)
    yield* byParts(ids, (part) =>
      sql`UPDATE entities SET profile_stale = TRUE, updated_at = ${now} WHERE user_id = ${userId}
          AND entity_id IN (SELECT entity_id FROM fact_entity_roles WHERE user_id = ${userId} AND ${inList(sql, "fact_id", part)})`)
    const cascaded = mode === "purge" ? yield* purgeFacts(sql, userId, writes, ids) : NOTHING_ERASED
    if (mode === "archive") {
      yield* byParts(ids, (part) =>
        sql`UPDATE facts SET status = 'archived', updated_at = ${now} WHERE user_id = ${userId} AND ${inList(sql, "fact_id", part)} AND status <> 'archived'`)
    }
    const seqs = [...new Set(sources.map((link) => link.seq))]
    const turns = yield* turnTexts(sql, userId, seqs)
    const archived = yield* byParts(seqs, (part) =>
      sql<TurnLink>`SELECT DISTINCT t.seq, f.content AS statement ${sql.literal(LINKS)}
                    WHERE t.user_id = ${userId} AND ${inList(sql, "t.seq", part)} AND f.status = 'archived'`)
    const { removed, rewrites } = rewriteTurns(turns, { purged: mode === "purge" ? sources : [], archived })
    const postings = UserPostings(sql, userId)
    let lexemes = 0
    for (const part of chunks(rewrites, REWRITES_PER_STATEMENT)) {
      const rows = JSON.stringify(part.map((turn) => ({ at_seq: turn.seq, content: turn.content, recorded_content: turn.recorded_content })))
      lexemes += yield* postings.reindexed("turns", part.map((turn) => turn.seq), sql`
        UPDATE turns t SET content = v.content, recorded_content = v.recorded_content, embedding = NULL
        FROM json_to_recordset(${rows}::json) AS v (at_seq bigint, content text, recorded_content text)
        WHERE t.user_id = ${userId} AND t.seq = v.at_seq`)
    }
    yield* writes.countIndexed("turns", 0, lexemes)
    const rewritten = new Set(rewrites.map((turn) => turn.seq))
    const unembedded = turns.filter((turn) => turn.embedded && rewritten.has(turn.seq)).length
    yield* sql`UPDATE users SET turns_vectors_removed = turns_vectors_removed + ${unembedded} WHERE user_id = ${userId}`
    const others = yield* byParts(seqs, (part) =>
      sql<{ readonly fact_id: string; readonly metadata: string }>`
        SELECT DISTINCT f.fact_id, f.metadata ${sql.literal(LINKS)}
        WHERE t.user_id = ${userId} AND ${inList(sql, "t.seq", part)} AND f.status <> 'archived'`)
    for (const other of others) {
      const metadata = scrubbedMetadata(other.metadata, removed)
      if (metadata !== undefined) yield* sql`UPDATE facts SET metadata = ${metadata} WHERE user_id = ${userId} AND fact_id = ${other.fact_id}`
    }
    const words = forgottenWords(mode, removed, facts)
    if (mode === "purge") {
      const events = yield* byParts(ids, (part) =>
        sql<{ readonly event_id: string; readonly reason: string | null; readonly details: string }>`
          SELECT event_id, reason, details FROM events WHERE user_id = ${userId} AND ${inList(sql, "memory_id", part)}`)
      for (const event of events) {
        const kept = scrubbedEvent(event, words)
        yield* sql`UPDATE events SET reason = ${kept.reason}, details = ${kept.details} WHERE user_id = ${userId} AND event_id = ${event.event_id}`
      }
    }
    return { rewrites, cascaded, words }
  })

/** The words purging the memory would take out, read without changing anything; none for no such memory. */
export const purgeWords = (sql: SqlClient.SqlClient, userId: string, memoryId: string) =>
  Effect.gen(function*() {
    const facts = yield* forgottenWith(sql, userId, memoryId)
    const sources = yield* sourcesOf(sql, userId, facts.map((fact) => fact.fact_id))
    const turns = yield* turnTexts(sql, userId, [...new Set(sources.map((link) => link.seq))])
    return forgottenWords("purge", rewriteTurns(turns, { purged: sources, archived: [] }).removed, facts)
  })

/**
 * Erases facts for good: their vectors go with their rows, their roles, edges from and to them,
 * and their source links with them, and so do the entities no other fact names (their names came
 * from these facts' statements). Part by part (a memory may have more versions than one statement
 * binds ids), each counted by what it erases: an edge between versions of two parts goes, and
 * counts, with the first.
 */
const purgeFacts = (sql: SqlClient.SqlClient, userId: string, writes: ReturnType<typeof UserWrites>, ids: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const vectors = yield* byParts(ids, (part) =>
      sql<{ readonly n: number }>`SELECT count(*) AS n FROM facts WHERE user_id = ${userId} AND ${inList(sql, "fact_id", part)} AND embedding IS NOT NULL`)
    const edges = yield* byParts(ids, (part) =>
      sql<{ readonly edge_id: string }>`
        DELETE FROM edges WHERE user_id = ${userId} AND (${inList(sql, "src_fact_id", part)} OR ${inList(sql, "dst_id", part)}) RETURNING edge_id`)
    const named = yield* byParts(ids, (part) =>
      sql<{ readonly entity_id: string }>`DELETE FROM fact_entity_roles WHERE user_id = ${userId} AND ${inList(sql, "fact_id", part)} RETURNING entity_id`)
    yield* byParts([...new Set(named.map((row) => row.entity_id))], (part) =>
      sql`DELETE FROM entities e WHERE e.user_id = ${userId} AND ${inList(sql, "e.entity_id", part)}
          AND NOT EXISTS (SELECT 1 FROM fact_entity_roles r WHERE r.user_id = e.user_id AND r.entity_id = e.entity_id)`)
    const sources = yield* byParts(ids, (part) =>
      sql<{ readonly fact_id: string }>`DELETE FROM fact_sources WHERE user_id = ${userId} AND ${inList(sql, "fact_id", part)} RETURNING fact_id`)
    yield* byParts(ids, (part) => sql`UPDATE facts SET superseded_by = NULL WHERE user_id = ${userId} AND ${inList(sql, "superseded_by", part)}`)
    const deleted = yield* byParts(ids, (part) => UserPostings(sql, userId).delete("facts", inList(sql, "fact_id", part)))
    yield* writes.countIndexed("facts", -deleted.length, -deleted.reduce((sum, row) => sum + row.lexemes, 0))
    const vectorsErased = vectors.reduce((sum, row) => sum + Number(row.n), 0)
    yield* sql`UPDATE users SET facts_vectors_removed = facts_vectors_removed + ${vectorsErased} WHERE user_id = ${userId}`
    return { vectors: vectorsErased, fact_entity_roles: named.length, fact_edges: edges.length, fact_sources: sources.length }
  })
