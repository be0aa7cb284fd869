import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { FactRow } from "../../../domain/records.js"
import { NOTHING_ERASED, profilesCiting, forgottenWords, rewriteTurns, scrubbedEvent, scrubbedMetadata, type StoredTurnText, type TurnLink } from "../../forgetting.js"
import { inBatches } from "./batches.js"
import { purgeFacts } from "./purge.js"
import { FACT_COLUMNS } from "./retrieval.js"
import { VectorQueries } from "./vectors.js"

// Archiving and purging inside the caller's transaction: the memories change, and so do the turns
// they were taken from (storage/forgetting.ts decides how).

const LINKS = `FROM fact_sources fs JOIN facts f ON f.fact_id = fs.fact_id
  JOIN spans sp ON sp.span_id = fs.span_id JOIN turns t ON t.turn_id = sp.turn_id`

/** The statements of the facts, each linked to a turn it came from. */
const sourcesOf = (sql: SqlClient.SqlClient, factIds: ReadonlyArray<string>) =>
  inBatches(factIds, (batch) => sql<TurnLink>`SELECT DISTINCT t.seq, f.content AS statement ${sql.literal(LINKS)} WHERE fs.fact_id IN ${sql.in(batch)}`)

const turnTexts = (sql: SqlClient.SqlClient, seqs: ReadonlyArray<number>) =>
  inBatches(seqs, (batch) => sql<StoredTurnText>`SELECT seq, content, recorded_content FROM turns WHERE seq IN ${sql.in(batch)}`)

/**
 * What forgetting a memory takes with it: the memory, every version it superseded, and every
 * profile that cites any of them.
 */
export const forgottenWith = (sql: SqlClient.SqlClient, memoryId: string) =>
  Effect.gen(function*() {
    const versions = yield* sql<FactRow>`
      WITH RECURSIVE chain (fact_id) AS (
        SELECT ${memoryId} UNION SELECT f.fact_id FROM facts f JOIN chain c ON f.superseded_by = c.fact_id)
      SELECT ${sql.literal(FACT_COLUMNS)} FROM facts f WHERE f.fact_id IN (SELECT fact_id FROM chain) ORDER BY f.seq`
    const ids = new Set(versions.map((fact) => fact.fact_id))
    const profiles = yield* sql<FactRow>`SELECT ${sql.literal(FACT_COLUMNS)} FROM facts f WHERE f.kind = 'profile' ORDER BY f.seq`
    return [...versions, ...profilesCiting(profiles, ids)]
  })

/**
 * Archives (status `archived`, records kept) or purges (rows erased) the facts, and rewrites the
 * turns they came from: a purged memory's words redacted from the turn as recorded, every
 * archived memory's words elided from the turn as shown, each changed turn's full-text entry
 * following it (by trigger) and its vector dropped. Other memories' support texts and, on purge,
 * the events about the purged ones lose the words too. Answers the turns to embed again, and the
 * words taken out (for copies held elsewhere).
 */
export const forgetFacts = (sql: SqlClient.SqlClient, mode: "archive" | "purge", facts: ReadonlyArray<FactRow>, now: string) =>
  Effect.gen(function*() {
    const ids = facts.map((fact) => fact.fact_id)
    const sources = yield* sourcesOf(sql, ids)
    yield* inBatches(ids, (batch) =>
      sql`UPDATE entities SET profile_stale = 1, updated_at = ${now}
          WHERE entity_id IN (SELECT entity_id FROM fact_entity_roles WHERE fact_id IN ${sql.in(batch)})`)
    const cascaded = mode === "purge" ? yield* purgeFacts(sql, facts) : NOTHING_ERASED
    if (mode === "archive") {
      yield* inBatches(ids, (batch) =>
        sql`UPDATE facts SET status = 'archived', updated_at = ${now} WHERE fact_id IN ${sql.in(batch)} AND status <> 'archived'`)
    }
    const seqs = [...new Set(sources.map((link) => link.seq))]
    const turns = yield* turnTexts(sql, seqs)
    const archived = yield* inBatches(seqs, (batch) =>
      sql<TurnLink>`SELECT DISTINCT t.seq, f.content AS statement ${sql.literal(LINKS)} WHERE t.seq IN ${sql.in(batch)} AND +f.status = 'archived'`)
    const { removed, rewrites } = rewriteTurns(turns, { purged: mode === "purge" ? sources : [], archived })
    const vectors = VectorQueries(sql)
    for (const turn of rewrites) {
      yield* sql`UPDATE turns SET content = ${turn.content}, recorded_content = ${turn.recorded_content} WHERE seq = ${turn.seq}`
      yield* vectors.remove("turn", turn.seq)
    }
    const others = yield* inBatches(seqs, (batch) =>
      sql<{ readonly fact_id: string; readonly metadata: string }>`
        SELECT DISTINCT f.fact_id, f.metadata ${sql.literal(LINKS)} WHERE t.seq IN ${sql.in(batch)} AND f.status <> 'archived'`)
    for (const other of others) {
      const metadata = scrubbedMetadata(other.metadata, removed)
      if (metadata !== undefined) yield* sql`UPDATE facts SET metadata = ${metadata} WHERE fact_id = ${other.fact_id}`
    }
    const words = forgottenWords(mode, removed, facts)
    if (mode === "purge") {
      const events = yield* inBatches(ids, (batch) =>
        sql<{ readonly seq: number; readonly reason: string | null; readonly details: string }>`
          SELECT seq, reason, details FROM events WHERE memory_id IN ${sql.in(batch)}`)
      for (const event of events) {
        const kept = scrubbedEvent(event, words)
        yield* sql`UPDATE events SET reason = ${kept.reason}, details = ${kept.details} WHERE seq = ${event.seq}`
      }
    }
    return { rewrites, cascaded, words }
  })

/** The words purging the memory would take out, read without changing anything; none for no such memory. */
export const purgeWords = (sql: SqlClient.SqlClient, memoryId: string) =>
  Effect.gen(function*() {
    const facts = yield* forgottenWith(sql, memoryId)
    const sources = yield* sourcesOf(sql, facts.map((fact) => fact.fact_id))
    const turns = yield* turnTexts(sql, [...new Set(sources.map((link) => link.seq))])
    return forgottenWords("purge", rewriteTurns(turns, { purged: sources, archived: [] }).removed, facts)
  })
