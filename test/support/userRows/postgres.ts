import { Effect } from "effect"
import Pg from "pg"
import { withClient } from "../../../scripts/postgres/cluster.js"
import { POSTINGS } from "../../../src/storage/postgres/user/postings.js"
import type { ControlRows, Row, UserRows } from "../userRows.js"
import { type Statement, statements } from "./statements.js"

const withConnection = <A>(url: string, use: (client: Pg.Client) => Promise<A>) => Effect.promise(() => withClient(url, use))

/** Booleans as SQLite stores them, so that a row reads the same on both backends. */
const asSqlite = (row: Row): Row => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, typeof value === "boolean" ? Number(value) : value]))

const query = (client: Pg.Client, { text, values }: Statement) => client.query<Row>(text, [...values]).then((result) => result.rows.map(asSqlite))

/** The user's tables hold every user: each statement of them names one. */
const ofUser = (userId: string) => statements("pg", { user_id: userId })

/** A user's rows in the shared tables of the server's database. */
export const postgresUserRows = (url: string): UserRows => ({
  select: (userId, table, select) => withConnection(url, (client) => query(client, ofUser(userId).select(table, select))),
  count: (userId, table, where) =>
    withConnection(url, (client) => query(client, ofUser(userId).count(table, where))).pipe(Effect.map(([row]) => Number(row?.n))),
  insert: (userId, table, rows) =>
    withConnection(url, async (client) => {
      const [user] = await query(client, { text: "SELECT user_id FROM users WHERE user_id = $1", values: [userId] })
      if (user === undefined) throw new Error(`user '${userId}' has no data yet`)
      for (const row of rows) await query(client, ofUser(userId).insert(table, row))
      // The lexical legs read the rows' postings and the collection's size from the user's row, which the
      // adapter's writes keep; the count of vectors added tells every server's copy of the user's vector bits to catch up.
      if (table === "facts" || table === "turns") {
        const postings = POSTINGS[table]
        await query(client, { text: `DELETE FROM ${postings} WHERE user_id = $1`, values: [userId] })
        await query(client, {
          text: `INSERT INTO ${postings} (user_id, lexeme, seq, frequency, document_length)
            SELECT r.user_id, u.lexeme, r.seq, cardinality(u.positions), length(r.search) FROM ${table} r, unnest(r.search) AS u WHERE r.user_id = $1`,
          values: [userId]
        })
        await query(client, {
          text: `UPDATE users SET ${table}_indexed = (SELECT count(*) FROM ${table} WHERE user_id = $1),
            ${table}_lexemes = (SELECT coalesce(sum(length(search)), 0) FROM ${table} WHERE user_id = $1),
            ${table}_vectors_added = ${table}_vectors_added + $2 WHERE user_id = $1`,
          values: [userId, rows.length]
        })
      }
    }),
  matching: (userId, table, word) =>
    withConnection(url, (client) =>
      query(client, {
        text: `SELECT count(*) AS n FROM ${POSTINGS[table]} WHERE user_id = $1 AND lexeme = ANY (tsvector_to_array(to_tsvector('english', $2)))`,
        values: [userId, word]
      })
    ).pipe(Effect.map(([row]) => Number(row?.n))),
  users: withConnection(url, (client) => query(client, { text: "SELECT user_id FROM users ORDER BY user_id", values: [] })).pipe(
    Effect.map((rows) => rows.map((row) => String(row.user_id)))
  ),
  vectorSpace: (userId) =>
    withConnection(url, (client) =>
      query(client, { text: "SELECT embedding_model, embedding_dimensions FROM users WHERE user_id = $1 AND embedding_model IS NOT NULL", values: [userId] })
    ).pipe(Effect.map(([row]) => row === undefined ? undefined : { model: String(row.embedding_model), dimensions: Number(row.embedding_dimensions) })),
  vectors: (userId, table) =>
    withConnection(url, (client) =>
      query(client, {
        text: `SELECT content, embedding::text AS embedding FROM ${table} WHERE user_id = $1 AND embedding IS NOT NULL ORDER BY seq`,
        values: [userId]
      })
    ).pipe(Effect.map((rows) => rows.map((row) => ({ content: String(row.content), vector: Float32Array.from(JSON.parse(String(row.embedding))) }))))
})

/** The control plane's tables in the server's database. */
export const postgresControlRows = (url: string): ControlRows => {
  const control = statements("pg", {})
  return {
    select: (table, select) => withConnection(url, (client) => query(client, control.select(table, select))),
    insert: (table, rows) =>
      withConnection(url, async (client) => {
        for (const row of rows) await query(client, control.insert(table, row))
      }),
    update: (table, set, where) => Effect.asVoid(withConnection(url, (client) => query(client, control.update(table, set, where)))),
    count: (table, where) => withConnection(url, (client) => query(client, control.count(table, where))).pipe(Effect.map(([row]) => Number(row?.n)))
  }
}
