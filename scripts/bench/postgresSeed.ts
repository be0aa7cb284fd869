/**
 * Facts written straight into the PostgreSQL schema (src/storage/postgres/migrations.ts) for one
 * user the service has already created, many rows a statement, with their postings and the user's
 * counters set as the adapter keeps them: the count of the user's facts and of their lexemes
 * (`length(search)`), which the lexical legs' bm25 reads, and the embedding space its vector leg checks.
 */
import Pg from "pg"
import { vectorText } from "../../src/storage/postgres/user/rows.js"
import { seededFact, seededVector } from "./corpus.js"

const BATCH = 1_000

export const seedPostgresFacts = async (options: {
  readonly url: string
  readonly userId: string
  readonly count: number
  readonly embedding: { readonly model: string; readonly dimensions: number }
}) => {
  const { count, embedding, userId } = options
  const client = new Pg.Client({ connectionString: options.url })
  await client.connect()
  try {
    const now = new Date().toISOString()
    for (let from = 0; from < count; from += BATCH) {
      const facts = Array.from({ length: Math.min(BATCH, count - from) }, (_, k) => seededFact(from + k))
      await client.query(
        `INSERT INTO facts (user_id, fact_id, content, kind, status, session_id, occurred_at, valid_from, confidence, metadata, created_at, updated_at, embedding)
         SELECT $1, f.fact_id, f.content, 'fact', 'active', 'seed', f.day, f.day, 0.9, '{}', $2, $2, f.embedding::vector
         FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) AS f (fact_id, content, day, embedding)`,
        [userId, now, facts.map((f) => f.factId), facts.map((f) => f.content), facts.map((f) => f.day),
          facts.map((f, k) => vectorText(seededVector(f.content, from + k, embedding.dimensions)))]
      )
    }
    await client.query(
      `INSERT INTO fact_postings (user_id, lexeme, seq, frequency, document_length)
       SELECT f.user_id, u.lexeme, f.seq, cardinality(u.positions), length(f.search) FROM facts f, unnest(f.search) AS u WHERE f.user_id = $1`,
      [userId]
    )
    await client.query(
      `UPDATE users SET facts_indexed = c.documents, facts_lexemes = c.lexemes, embedding_model = $2, embedding_dimensions = $3
       FROM (SELECT count(*) AS documents, coalesce(sum(length(search)), 0) AS lexemes FROM facts WHERE user_id = $1) AS c
       WHERE users.user_id = $1`,
      [userId, embedding.model, embedding.dimensions]
    )
    // What autovacuum would have done by now on a database that grew to this size over time.
    await client.query("VACUUM ANALYZE")
  } finally {
    await client.end()
  }
}
