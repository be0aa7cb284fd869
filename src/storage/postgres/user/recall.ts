import type { SqlClient } from "@effect/sql"
import { Effect, Either, Option } from "effect"
import type { FactRow, ScopeFilter, Scored, TurnRow } from "../../../domain/records.js"
import type { RecallLegs, RecallQuery } from "../../UserStore.js"
import { UserLexical } from "./lexical.js"
import { UserReads } from "./reads.js"
import { FACT_COLUMNS, inList, scopedTo, TURN_COLUMNS } from "./rows.js"
import { surveyUser, userVectors } from "./userState.js"
import type { VectorIndexes, VectorState, VectorTable } from "./vectorIndexes.js"

/** The retrieval legs over one user's data, on postings of English stems (lexical.ts) and pgvector. */
export const UserRecall = (sql: SqlClient.SqlClient, userId: string, indexes: VectorIndexes) => {
  const reads = UserReads(sql, userId)
  const visible = (statuses: ReadonlyArray<string>) => inList(sql, "f.status", statuses)
  const turnsJoin = sql`turns t JOIN sessions s ON s.user_id = t.user_id AND s.session_id = t.session_id`
  // Local dates sort as text: a prefix is the range [prefix, prefix + "~").
  const onDate = (column: string, prefix: string | null) =>
    prefix === null ? sql`TRUE` : sql`${sql.literal(column)} >= ${prefix} AND ${sql.literal(column)} < ${`${prefix}~`}`

  const lexical = UserLexical(sql, userId, reads)

  const vectorLeg = (query: RecallQuery, state: VectorState | undefined) =>
    Effect.gen(function*() {
      const { vector } = query
      if (Either.isLeft(vector)) return Either.left(vector.left)
      if (state === undefined) return Either.left("the vector index is empty")
      if (state.dimensions !== vector.right.length) {
        return Either.left(`the store's vectors have ${state.dimensions} dimensions (${state.model}), the embedder gives ${vector.right.length}; re-embed the store`)
      }
      const target = (table: VectorTable) => ({ userId, table, state })
      const { facts, turns } = yield* Effect.all({
        facts: indexes.nearest(sql, target("facts"), vector.right, query.vectorDepth, (ranked) => reads.factsRanked(ranked, query.scope, query.statuses, null)),
        turns: indexes.nearest(sql, target("turns"), vector.right, query.vectorDepth, (ranked) => Effect.map(reads.turnsRanked(ranked, query.scope, null), (turns) => turns.map((turn) => turn.row)))
      }, { concurrency: "unbounded" })
      return Either.right({ facts, turns })
    })

  /** Facts of the entities named, then the facts one edge away from them; direct ones first. */
  const entityLeg = (query: RecallQuery) =>
    Effect.gen(function*() {
      const { depth: limit, names, scope, statuses } = query
      if (names.length === 0) return [] as ReadonlyArray<FactRow>
      const direct = (yield* sql<{ readonly fact_id: string }>`
        SELECT f.fact_id, max(f.seq) AS seq FROM entities e
        JOIN fact_entity_roles r ON r.user_id = e.user_id AND r.entity_id = e.entity_id
        JOIN facts f ON f.user_id = r.user_id AND f.fact_id = r.fact_id
        WHERE e.user_id = ${userId} AND ${inList(sql, "e.normalized_name", names)} AND ${visible(statuses)} AND ${scopedTo(sql, "f", scope)}
        GROUP BY f.fact_id ORDER BY seq DESC LIMIT ${limit}`).map((row) => row.fact_id)
      if (direct.length === 0) return []
      const hop = (yield* sql<{ readonly fact_id: string }>`
        SELECT dst_id AS fact_id FROM edges WHERE user_id = ${userId} AND ${inList(sql, "src_fact_id", direct)}
        UNION SELECT src_fact_id FROM edges WHERE user_id = ${userId} AND ${inList(sql, "dst_id", direct)}`).map((row) => row.fact_id)
      const distance = new Map<string, number>([...hop.map((id) => [id, 1] as const), ...direct.map((id) => [id, 0] as const)])
      const rows = yield* sql<FactRow>`
        SELECT ${sql.literal(FACT_COLUMNS)} FROM facts f
        WHERE f.user_id = ${userId} AND ${inList(sql, "f.fact_id", [...distance.keys()])} AND ${visible(statuses)} AND ${scopedTo(sql, "f", scope)}`
      return [...rows].sort((a, b) => (distance.get(a.fact_id) ?? 1) - (distance.get(b.fact_id) ?? 1) || b.seq - a.seq).slice(0, limit)
    })

  const timeLeg = (query: RecallQuery, holdsFacts: boolean) => {
    const { datePrefix, depth: limit, scope, statuses } = query
    if (datePrefix === null) return Effect.succeed({ facts: [] as ReadonlyArray<FactRow>, turns: [] as ReadonlyArray<TurnRow> })
    return Effect.all({
      facts: !holdsFacts ? Effect.succeed([] as ReadonlyArray<FactRow>) : sql<FactRow>`SELECT ${sql.literal(FACT_COLUMNS)} FROM facts f
        WHERE f.user_id = ${userId} AND ${visible(statuses)} AND ${scopedTo(sql, "f", scope)} AND ${onDate("f.occurred_at", datePrefix)}
        ORDER BY f.occurred_at, f.seq LIMIT ${limit}`,
      turns: sql<TurnRow>`SELECT ${sql.literal(TURN_COLUMNS)} FROM ${turnsJoin}
        WHERE t.user_id = ${userId} AND ${scopedTo(sql, "t", scope)} AND ${onDate("s.session_time", datePrefix)}
        ORDER BY s.session_time, t.seq LIMIT ${limit}`
    })
  }

  /** The turns within reach of the best lexical turns (the seeds) in their sessions, the seeds among them. */
  const neighbourhoodLeg = (lexicalTurns: ReadonlyArray<Scored<TurnRow>>, query: RecallQuery) => {
    const seeded = lexicalTurns.slice(0, query.neighbourSeeds).map((turn) => turn.row)
    const reach = query.neighbourReach
    return seeded.length === 0 ? Effect.succeed([] as ReadonlyArray<TurnRow>) : sql<TurnRow>`SELECT ${sql.literal(TURN_COLUMNS)} FROM ${turnsJoin}
        WHERE t.user_id = ${userId} AND ${scopedTo(sql, "t", query.scope)} AND (${
      sql.or(seeded.map((turn) => sql`(t.session_id = ${turn.session_id} AND t.position BETWEEN ${turn.position - reach} AND ${turn.position + reach})`))
    }) ORDER BY t.seq`
  }

  return {
    legs: (query: RecallQuery) =>
      Effect.gen(function*() {
        const { depth: limit, scope, statuses } = query
        // One statement first tells what every leg needs (are there data? which vectors? how many
        // documents hold each term?); then the legs are independent statements, each on a
        // connection of its own, at once, the neighbourhood as soon as the lexical turns are known.
        // A user without facts runs no statement over facts.
        const user = yield* surveyUser(sql, userId, query.terms)
        if (user === undefined) return Option.none<RecallLegs>()
        const holdsFacts = user.facts.documents > 0
        // Legs with nothing to read answer at once: only those with statements to run are worth a
        // fiber each, and with one of them (a store of turns, a query naming no date) none is.
        const reading = [
          Either.isRight(query.vector) && user.vectors !== undefined,
          holdsFacts,
          true,
          holdsFacts && query.names.length > 0,
          query.datePrefix !== null
        ].filter((reads) => reads).length
        const [vector, lexicalFacts, [lexicalTurns, neighbours], entityFacts, dated] = yield* Effect.all([
          vectorLeg(query, user.vectors),
          lexical.facts(user.facts, scope, statuses, limit),
          lexical.turns(user.turns, scope, limit).pipe(
            Effect.flatMap((turns) => Effect.map(neighbourhoodLeg(turns, query), (near) => [turns, near] as const))
          ),
          holdsFacts ? entityLeg(query) : Effect.succeed([] as ReadonlyArray<FactRow>),
          timeLeg(query, holdsFacts)
        ], { concurrency: reading > 1 ? "unbounded" : 1 })
        return Option.some<RecallLegs>({
          lexicalFacts,
          lexicalTurns,
          vector,
          entityFacts,
          datedFacts: dated.facts,
          datedTurns: dated.turns,
          neighbours
        })
      }),

    similarFacts: (options: { readonly terms: ReadonlyArray<ReadonlyArray<string>>; readonly scope: ScopeFilter; readonly limit: number }) =>
      Effect.forEach(options.terms, (terms) =>
        Effect.flatMap(lexical.counts("facts", terms), (counts) => lexical.facts(counts, options.scope, ["active"], options.limit))),

    nearestFacts: (options: { readonly vectors: ReadonlyArray<Float32Array>; readonly scope: ScopeFilter; readonly limit: number }) =>
      Effect.gen(function*() {
        const state = (yield* userVectors(sql, userId))?.vectors
        if (state === undefined || options.vectors.some((vector) => vector.length !== state.dimensions)) {
          return options.vectors.map(() => [] as ReadonlyArray<FactRow>)
        }
        return yield* Effect.forEach(options.vectors, (vector) =>
          indexes.nearest(sql, { userId, table: "facts", state }, vector, options.limit, (ranked) => reads.factsRanked(ranked, options.scope, ["active"], null)))
      })
  }
}
