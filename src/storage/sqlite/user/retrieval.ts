import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { type FactRole, type FactRow, type FactSource, type ScopeFilter, type Scored, type TurnRow, turnRow } from "../../../domain/records.js"
import { inBatches } from "./batches.js"

/** Rows in the order of the seqs given (rows a seq did not find left out). */
const inGivenOrder = <Row extends { readonly seq: number }>(seqs: ReadonlyArray<number>, rows: ReadonlyArray<Row>) => {
  const position = new Map(seqs.map((seq, i) => [seq, i]))
  return [...rows].sort((a, b) => position.get(a.seq)! - position.get(b.seq)!)
}

/** The fact columns as a FactRow, on a query that names facts `f`. */
export const FACT_COLUMNS = `f.seq, f.fact_id, f.content, f.kind, f.status, f.session_id, f.occurred_at, f.valid_from, f.valid_until,
  f.confidence, f.metadata, f.agent_id, f.run_id, f.project_id, f.superseded_by`
const TURN_COLUMNS = "t.seq, t.turn_id, t.session_id, t.position, t.role, t.content, t.agent_id, t.run_id, t.project_id, s.session_time"

/** Narrowing scope on the rows aliased `alias`: a row stamped with another value is out; an unstamped one is in. */
export const scopedTo = (sql: SqlClient.SqlClient, alias: string, scope: ScopeFilter) =>
  sql.and((["agent_id", "run_id", "project_id"] as const).flatMap((key) =>
    scope[key] === null ? [] : [sql`(${sql.literal(`${alias}.${key}`)} IS NULL OR ${sql.literal(`${alias}.${key}`)} = ${scope[key]})`]))

const isUnscoped = (scope: ScopeFilter) => scope.agent_id === null && scope.run_id === null && scope.project_id === null

/** A row of `lexicalFrequencies`: a stem's count of documents in one index, or the mark that the store holds a fact. */
interface FrequencyRow {
  readonly idx: "facts" | "turns" | "any_fact"
  readonly term: string
  readonly doc: number
}

/** Queries of the retrieval legs over one user's store. Each returns rows best first. */
export const RetrievalQueries = (sql: SqlClient.SqlClient) => {
  const scoped = (alias: string, scope: ScopeFilter) => scopedTo(sql, alias, scope)
  const visible = (statuses: ReadonlyArray<string>) => sql`f.status IN ${sql.in(statuses)}`
  // Without statistics the planner takes the status index for a date-ordered read and sorts every
  // visible fact; a unary + keeps it on facts_by_occurred, read in order and stopped at the limit.
  // Local dates sort as text: a prefix is the range [prefix, prefix + "~"), which an index serves.
  const onDate = (column: string, prefix: string) => sql`${sql.literal(column)} >= ${prefix} AND ${sql.literal(column)} < ${`${prefix}~`}`

  return {
    /** Facts on a date, in date order. */
    factsOnDate: (options: { readonly scope: ScopeFilter; readonly statuses: ReadonlyArray<string>; readonly datePrefix: string; readonly limit: number }) =>
      sql<FactRow>`
        SELECT ${sql.literal(FACT_COLUMNS)} FROM facts f
        WHERE +${visible(options.statuses)} AND ${scoped("f", options.scope)} AND ${onDate("f.occurred_at", options.datePrefix)}
        ORDER BY f.occurred_at, f.seq LIMIT ${options.limit}`,

    /** Facts matching the FTS5 expression, by bm25, equal scores in the order written. */
    factsMatching: (options: { readonly expression: string; readonly scope: ScopeFilter; readonly statuses: ReadonlyArray<string>; readonly limit: number }) =>
      sql<FactRow>`
        SELECT ${sql.literal(FACT_COLUMNS)} FROM facts_fts JOIN facts f ON f.seq = facts_fts.rowid
        WHERE facts_fts MATCH ${options.expression} AND ${visible(options.statuses)} AND ${scoped("f", options.scope)}
        ORDER BY bm25(facts_fts), f.seq LIMIT ${options.limit}`,

    /** Raw turns in sessions on a date, in date order. */
    turnsOnDate: (options: { readonly scope: ScopeFilter; readonly datePrefix: string; readonly limit: number }) =>
      sql<TurnRow>`
        SELECT ${sql.literal(TURN_COLUMNS)} FROM turns t JOIN sessions s ON s.session_id = t.session_id
        WHERE ${scoped("t", options.scope)} AND ${onDate("s.session_time", options.datePrefix)}
        ORDER BY s.session_time, t.seq LIMIT ${options.limit}`,

    /** Raw turns matching the FTS5 expression, best first (equal scores in turn order), each with its bm25 score (FTS5's negated: higher is better). */
    turnsMatching: (options: { readonly expression: string; readonly scope: ScopeFilter; readonly limit: number }) =>
      Effect.map(
        isUnscoped(options.scope)
          // Nothing to filter on the turns' columns: the best rowids first, from the index alone, and
          // only those read from the tables (every turn has its session), not every match.
          ? sql<TurnRow & { readonly bm25_score: number }>`
            WITH hits AS (
              SELECT rowid AS seq, bm25(turns_fts) AS score FROM turns_fts WHERE turns_fts MATCH ${options.expression}
              ORDER BY score, rowid LIMIT ${options.limit})
            SELECT ${sql.literal(TURN_COLUMNS)}, -hits.score AS bm25_score FROM hits JOIN turns t ON t.seq = hits.seq
            JOIN sessions s ON s.session_id = t.session_id
            ORDER BY hits.score, t.seq`
          : sql<TurnRow & { readonly bm25_score: number }>`
            SELECT ${sql.literal(TURN_COLUMNS)}, -bm25(turns_fts) AS bm25_score FROM turns_fts JOIN turns t ON t.seq = turns_fts.rowid
            JOIN sessions s ON s.session_id = t.session_id
            WHERE turns_fts MATCH ${options.expression} AND ${scoped("t", options.scope)}
            ORDER BY bm25(turns_fts), t.seq LIMIT ${options.limit}`,
        (rows) => rows.map((found): Scored<TurnRow> => ({ row: turnRow(found), score: found.bm25_score }))
      ),

    /**
     * Facts of the entities named (normalized names), then the facts one edge away from them;
     * direct ones first. Step by step, so a query naming no entity costs one index lookup.
     */
    factsOfEntities: (options: { readonly names: ReadonlyArray<string>; readonly scope: ScopeFilter; readonly statuses: ReadonlyArray<string>; readonly limit: number }) =>
      Effect.gen(function*() {
        if (options.names.length === 0) return [] as ReadonlyArray<FactRow>
        const entities = yield* sql<{ readonly entity_id: string }>`SELECT entity_id FROM entities WHERE normalized_name IN ${sql.in(options.names)}`
        if (entities.length === 0) return []
        // The newest visible facts only: an entity named in many facts (the user) costs no more than its share of the result.
        const direct = (yield* sql<{ readonly fact_id: string }>`
          SELECT DISTINCT f.fact_id, f.seq FROM fact_entity_roles r JOIN facts f ON f.fact_id = r.fact_id
          WHERE r.entity_id IN ${sql.in(entities.map((e) => e.entity_id))} AND ${visible(options.statuses)} AND ${scoped("f", options.scope)}
          ORDER BY f.seq DESC LIMIT ${options.limit}`).map((r) => r.fact_id)
        if (direct.length === 0) return []
        const hop = (yield* sql<{ readonly fact_id: string }>`
          SELECT dst_id AS fact_id FROM edges WHERE src_fact_id IN ${sql.in(direct)}
          UNION SELECT src_fact_id FROM edges WHERE dst_id IN ${sql.in(direct)}`).map((r) => r.fact_id)
        const distance = new Map<string, number>([...hop.map((id) => [id, 1] as const), ...direct.map((id) => [id, 0] as const)])
        const rows = yield* sql<FactRow>`
          SELECT ${sql.literal(FACT_COLUMNS)} FROM facts f
          WHERE f.fact_id IN ${sql.in([...distance.keys()])} AND ${visible(options.statuses)} AND ${scoped("f", options.scope)}`
        return [...rows]
          .sort((a, b) => (distance.get(a.fact_id) ?? 1) - (distance.get(b.fact_id) ?? 1) || b.seq - a.seq)
          .slice(0, options.limit)
      }),

    /** Turns by their rowids, in the order given, within scope. */
    turnsBySeq: (seqs: ReadonlyArray<number>, scope: ScopeFilter) =>
      Effect.map(
        inBatches(seqs, (batch) =>
          sql<TurnRow>`SELECT ${sql.literal(TURN_COLUMNS)} FROM turns t JOIN sessions s ON s.session_id = t.session_id
                       WHERE t.seq IN ${sql.in(batch)} AND ${scoped("t", scope)}`),
        (rows) => inGivenOrder(seqs, rows)
      ),

    /** Facts by their rowids, in the order given, visible and within scope. */
    factsBySeq: (seqs: ReadonlyArray<number>, scope: ScopeFilter, statuses: ReadonlyArray<string>) =>
      Effect.map(
        inBatches(seqs, (batch) =>
          sql<FactRow>`SELECT ${sql.literal(FACT_COLUMNS)} FROM facts f
                       WHERE f.seq IN ${sql.in(batch)} AND ${visible(statuses)} AND ${scoped("f", scope)}`),
        (rows) => inGivenOrder(seqs, rows)
      ),

    /** The turns within `reach` of the given ones in their sessions, the given ones among them. */
    neighbours: (turns: ReadonlyArray<Pick<TurnRow, "session_id" | "position">>, reach: number, scope: ScopeFilter) =>
      turns.length === 0
        ? Effect.succeed([] as ReadonlyArray<TurnRow>)
        : sql<TurnRow>`
          SELECT ${sql.literal(TURN_COLUMNS)} FROM turns t JOIN sessions s ON s.session_id = t.session_id
          WHERE ${sql.or(turns.map((turn) => sql`(t.session_id = ${turn.session_id} AND t.position BETWEEN ${turn.position - reach} AND ${turn.position + reach})`))}
            AND ${scoped("t", scope)}
          ORDER BY t.seq`,

    /**
     * What a search's legs start from, in one statement: how many documents of each index hold
     * each stem, and whether the store holds any fact at all (without one, none can match). A
     * query without terms still learns the latter.
     */
    lexicalFrequencies: (stems: ReadonlyArray<string>) => {
      const anyFact = sql`SELECT 'any_fact' AS idx, '' AS term, 1 AS doc WHERE EXISTS (SELECT 1 FROM facts)`
      return Effect.map(
        stems.length === 0
          ? sql<FrequencyRow>`${anyFact}`
          : inBatches(stems, (batch) =>
            sql<FrequencyRow>`
              SELECT 'facts' AS idx, term, doc FROM facts_vocab WHERE term IN ${sql.in(batch)}
              UNION ALL SELECT 'turns', term, doc FROM turns_vocab WHERE term IN ${sql.in(batch)}
              UNION ALL ${anyFact}`),
        (rows) => {
          const of = (index: "facts" | "turns") => new Map(rows.filter((row) => row.idx === index).map((row) => [row.term, row.doc]))
          return { anyFact: rows.some((row) => row.idx === "any_fact"), facts: of("facts"), turns: of("turns") }
        }
      )
    },

    /** How many documents of an index contain each (stemmed) term. */
    termFrequencies: (index: "facts" | "turns", stems: ReadonlyArray<string>) =>
      inBatches(stems, (batch) =>
        sql<{ readonly term: string; readonly doc: number }>`
          SELECT term, doc FROM ${sql.literal(`${index}_vocab`)} WHERE term IN ${sql.in(batch)}`),

    /** The source turns and entity roles of facts. */
    provenance: (factIds: ReadonlyArray<string>) =>
      Effect.all({
        sources: inBatches(factIds, (batch) =>
          sql<FactSource>`
            SELECT fs.fact_id, fs.span_id, t.turn_id, t.session_id, t.role, t.content, s.session_time
            FROM fact_sources fs JOIN spans sp ON sp.span_id = fs.span_id JOIN turns t ON t.turn_id = sp.turn_id
            JOIN sessions s ON s.session_id = t.session_id
            WHERE fs.fact_id IN ${sql.in(batch)} ORDER BY t.seq`),
        roles: inBatches(factIds, (batch) =>
          sql<FactRole>`
            SELECT r.fact_id, r.role, e.name FROM fact_entity_roles r JOIN entities e ON e.entity_id = r.entity_id
            WHERE r.fact_id IN ${sql.in(batch)} ORDER BY r.fact_id, r.role, e.name`)
      })
  }
}
