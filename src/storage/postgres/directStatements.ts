import { type SqlClient, SqlError } from "@effect/sql"
import { Effect, FiberRef, Option } from "effect"
import type Pg from "pg"
import { runningStatementsWith, transactionConnection } from "../statementRunner.js"

type Rows = ReadonlyArray<unknown>

type Answer = Pg.QueryResult | ReadonlyArray<Pg.QueryResult>

const isAnswerList = (answer: Answer): answer is ReadonlyArray<Pg.QueryResult> => Array.isArray(answer)

/** A statement's rows; a text of several statements (no parameters) answers the rows of each. */
const rowsOf = (answer: Answer): Rows => isAnswerList(answer) ? answer.map((each) => each.rows) : answer.rows

/**
 * One statement on a connection taken from the pool and given back as soon as it answers, with
 * the failures @effect/sql-pg reports (a connection that fails meanwhile is given back broken, so
 * the pool drops it). An interrupted caller stops waiting; the statement still runs to its end and
 * its connection goes back then: nothing is cancelled on another connection (see `orUnavailable`).
 */
const runOnPool = (pool: Pg.Pool, text: string, params: ReadonlyArray<unknown>) =>
  Effect.async<Rows, SqlError.SqlError>((resume) => {
    pool.connect((cause, client) => {
      if (client === undefined || (cause !== undefined && cause !== null)) {
        resume(Effect.fail(new SqlError.SqlError({ cause: cause ?? new Error("No client returned"), message: "Failed to acquire connection" })))
        return
      }
      let settled = false
      const settle = (broken: Error | undefined, outcome: Effect.Effect<Rows, SqlError.SqlError>) => {
        if (settled) return
        settled = true
        client.off("error", onError)
        client.release(broken)
        resume(outcome)
      }
      const onError = (error: Error) => settle(error, Effect.fail(new SqlError.SqlError({ cause: error, message: "Connection error" })))
      const failed = (cause: unknown) => Effect.fail(new SqlError.SqlError({ cause, message: "Failed to execute statement" }))
      client.once("error", onError)
      try {
        client.query(text, [...params], (error: Error | null, result: Answer) =>
          settle(undefined, error === null || error === undefined ? Effect.succeed(rowsOf(result)) : failed(error)))
      } catch (cause) {
        // A driver that throws instead of answering through the callback must not take the process with it.
        settle(undefined, failed(cause))
      }
    })
  })

/**
 * The client with each statement made by `sql\`…\`` run straight on its connection: the
 * transaction's, or else one taken from the pool for it. @effect/sql's own path makes a span, a
 * scope and a connection handle per statement, about a hundred steps of the fiber, which counted
 * for a fifth of a search's CPU. While traces are exported a statement takes that path as before,
 * for its span. The client has no row transforms to apply.
 */
export const directStatements = (client: SqlClient.SqlClient, pool: Pg.Pool): SqlClient.SqlClient =>
  runningStatementsWith(client, (statement, standard) =>
    Effect.flatMap(FiberRef.get(FiberRef.currentTracerEnabled), (traced) =>
      traced ? standard : Effect.flatMap(transactionConnection, (held) => {
        const [text, params] = statement.compile()
        return Option.isSome(held) ? held.value.execute(text, params, undefined) : runOnPool(pool, text, params)
      })))
