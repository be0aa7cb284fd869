import { SqlClient, type SqlError, Statement } from "@effect/sql"
import { Effect, Option } from "effect"

/** How a client runs a statement made with `sql\`…\``, given the statement and its standard run. */
export type StatementRunner = (
  statement: Statement.Statement<unknown>,
  standard: Effect.Effect<ReadonlyArray<unknown>, SqlError.SqlError>
) => Effect.Effect<ReadonlyArray<unknown>, SqlError.SqlError>

const isStatement = (made: unknown): made is Statement.Statement<unknown> => Statement.isFragment(made) && Effect.isEffect(made)

/**
 * The client with every statement made by `sql\`…\`` run by `run` instead of @effect/sql's own
 * path (a span, a scope and a connection acquired per statement). Fragments, `unsafe`, `insert`
 * and the client's other helpers are its own, unchanged.
 */
export const runningStatementsWith = (client: SqlClient.SqlClient, run: StatementRunner): SqlClient.SqlClient => {
  const sql = Object.assign(function(this: unknown, ...args: Parameters<SqlClient.SqlClient>) {
    const made: unknown = client.apply(this, args)
    if (!isStatement(made)) return made
    // The same statement made again, left as @effect/sql runs it, only when a runner asks for it.
    const standard = Effect.suspend(() => {
      const again: unknown = client.apply(this, args)
      return isStatement(again) ? again : Effect.dieMessage("a statement made again was no statement")
    })
    return Object.assign(made, { commit: () => run(made, standard) })
  }, client) as SqlClient.SqlClient
  return Object.assign(sql, { safe: sql })
}

/** The connection of the transaction this fiber runs in, if it runs in one: its statements go there. */
export const transactionConnection = Effect.map(Effect.serviceOption(SqlClient.TransactionConnection), Option.map(([connection]) => connection))
