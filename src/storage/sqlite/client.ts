import { SqlClient, SqlError, Statement } from "@effect/sql"
import type { Connection } from "@effect/sql/SqlConnection"
import Sqlite from "better-sqlite3"
import { Effect, Option, Scope, Stream } from "effect"
import { RecentCache } from "../../util/recentCache.js"
import { type RowMaker, rowMakerFor } from "./rowMaker.js"
import { runningStatementsWith, transactionConnection } from "../statementRunner.js"

/**
 * Prepared statements kept per connection; past it the least recently used one is dropped (and
 * finalized when collected). A store's retrieval statements take tens of KiB each, and texts that
 * vary (lists of ids of different lengths) kept 500 per open store: ~170 MiB over 16 stores under
 * `bench:load`. The statements every request runs are far fewer than 64.
 */
const PREPARED_CAPACITY = 64

/**
 * An `SqlClient` over one better-sqlite3 connection in WAL mode, for the enclosing scope.
 *
 * It keeps the statement API and transactions of `@effect/sql`, and makes each statement several
 * times cheaper to run than `@effect/sql-sqlite-node`'s client does, which counts on paths that
 * issue dozens (a session's write):
 * - a statement made with `sql\`...\`` runs straight on the connection, without a span and a
 *   scope of its own: transactions and the service operations around them keep their spans;
 * - prepared statements sit in a plain LRU map, not an effectful cache with a clock and deferreds;
 * - rows are read as arrays of values and made objects here (see `rowMakerFor`);
 * - a statement outside a transaction only queues on the connection's permit while another
 *   fiber's transaction holds it, so it never runs inside that transaction.
 */
export const makeSqliteClient = (options: {
  readonly filename: string
  /** Loadable SQLite extensions, loaded before the first statement. */
  readonly extensions?: ReadonlyArray<string>
  /** Run after each transaction, once the connection is free again. */
  readonly onTransactionEnd?: Effect.Effect<void>
  /** Opened read-only, as it is: the file must exist and its journal mode is left alone. */
  readonly readonly?: boolean
}) =>
  Effect.gen(function*() {
    const db = yield* Effect.acquireRelease(
      Effect.try({
        try: () => {
          const readonly = options.readonly === true
          const opened = new Sqlite(options.filename, { readonly, fileMustExist: readonly })
          for (const extension of options.extensions ?? []) opened.loadExtension(extension)
          if (!readonly) opened.pragma("journal_mode = WAL")
          return opened
        },
        catch: (cause) => new SqlError.SqlError({ cause, message: `Failed to open ${options.filename}` })
      }),
      (opened) => Effect.sync(() => opened.close())
    )
    const { connection, rowsNow } = makeConnection(db)

    const permit = yield* Effect.makeSemaphore(1)
    let transactionOpen = false
    const afterTransaction = permit.withPermits(1)(Effect.succeed(connection))
    const acquirer = Effect.suspend(() => transactionOpen ? afterTransaction : Effect.succeed(connection))
    const transactionAcquirer = Effect.uninterruptibleMask((restore) =>
      restore(permit.take(1)).pipe(
        Effect.zipRight(Effect.scope),
        Effect.flatMap((scope) => {
          transactionOpen = true
          return Scope.addFinalizer(
            scope,
            Effect.suspend(() => {
              transactionOpen = false
              return permit.release(1)
            }).pipe(Effect.zipRight(options.onTransactionEnd ?? Effect.void))
          )
        }),
        Effect.as(connection)
      )
    )
    const client = yield* SqlClient.make({
      acquirer,
      transactionAcquirer,
      compiler: Statement.makeCompilerSqlite(),
      spanAttributes: [["db.system.name", "sqlite"]]
    })

    const executeNow = (statement: Statement.Statement<unknown>) => {
      const [text, params] = statement.compile()
      return rowsNow(text, params)
    }
    // At once when no transaction holds the connection, or this fiber's does; else once it ends,
    // holding the permit so that no transaction begins before the statement has run.
    return runningStatementsWith(client, (statement) =>
      Effect.suspend(() => {
        if (!transactionOpen) return executeNow(statement)
        const execute = Effect.suspend(() => executeNow(statement))
        return Effect.flatMap(transactionConnection, (held) =>
          Option.isSome(held) && held.value === connection ? execute : permit.withPermits(1)(execute))
      }))
  })

/** What a statement that answers rows knows of them: its columns' names, and the maker of its rows' objects. */
interface RowShape {
  readonly columns: ReadonlyArray<string>
  readonly make: RowMaker
}

/** A prepared statement; one that answers rows is kept in raw mode, with the shape of its rows. */
interface Prepared {
  readonly statement: Sqlite.Statement
  /** The shape of its rows when it answers rows (as arrays of values), else null. */
  shape: RowShape | null
  /** A write that changes the schema: the names kept for the columns of others may be stale after it. */
  readonly changesSchema: boolean
}

// better-sqlite3 builds a row object through V8's API, looking each column's name up again for
// every value: a row of ten columns took ~2.4 µs that way. Read as its array of values, the row is
// made an object here (`rowMakerFor`).
const shapeOf = (statement: Sqlite.Statement): RowShape => {
  const columns = statement.columns().map((column) => column.name)
  return { columns, make: rowMakerFor(columns) }
}

const CHANGES_SCHEMA = /^\s*(?:ALTER|CREATE|DROP)\b/i

const prepareOn = (db: Sqlite.Database, sql: string): Prepared => {
  const statement = db.prepare(sql)
  return statement.reader
    ? { statement: statement.raw(true), shape: shapeOf(statement), changesSchema: false }
    : { statement, shape: null, changesSchema: CHANGES_SCHEMA.test(sql) }
}

const asObjects = (shape: RowShape, rows: ReadonlyArray<ReadonlyArray<unknown>>) => rows.map(shape.make)

const makeConnection = (db: Sqlite.Database) => {
  const statements = new RecentCache<string, Prepared>(PREPARED_CAPACITY)
  const prepare = (sql: string) => {
    const cached = statements.get(sql)
    if (cached !== undefined) return cached
    const statement = prepareOn(db, sql)
    statements.set(sql, statement)
    return statement
  }
  /** Runs at once, when called: the outcome as an effect that has nothing left to do. */
  const runNow = <A>(sql: string, execute: (statement: Prepared) => A): Effect.Effect<A, SqlError.SqlError> => {
    let statement: Prepared
    try {
      statement = prepare(sql)
    } catch (cause) {
      return Effect.fail(new SqlError.SqlError({ cause, message: "Failed to prepare statement" }))
    }
    try {
      return Effect.succeed(execute(statement))
    } catch (cause) {
      return Effect.fail(new SqlError.SqlError({ cause, message: "Failed to execute statement" }))
    }
  }
  const run = <A>(sql: string, execute: (statement: Prepared) => A) => Effect.suspend(() => runNow(sql, execute))
  const runWrite = ({ changesSchema, statement }: Prepared, params: ReadonlyArray<unknown>) => {
    const result = statement.run(...params)
    if (changesSchema) statements.clear()
    return result
  }
  /** What a statement answers: its rows, as `read` gives them, for a query; none for a write, which is run. */
  const answered = <A>(params: ReadonlyArray<unknown>, read: (shape: RowShape, values: ReadonlyArray<ReadonlyArray<unknown>>) => ReadonlyArray<A>) =>
  (prepared: Prepared): ReadonlyArray<A> => {
    if (prepared.shape === null) {
      runWrite(prepared, params)
      return []
    }
    // In raw mode each row is its array of values.
    const values = prepared.statement.all(...params) as ReadonlyArray<ReadonlyArray<unknown>>
    // SQLite prepares a statement again when another connection has changed the schema: a `*` may
    // then stand for more or fewer columns.
    if (values.length > 0 && values[0]!.length !== prepared.shape.columns.length) prepared.shape = shapeOf(prepared.statement)
    return read(prepared.shape, values)
  }
  const allRows = (params: ReadonlyArray<unknown>) => answered(params, asObjects)
  const rowsNow = (sql: string, params: ReadonlyArray<unknown>) => runNow(sql, allRows(params))
  const rows = (sql: string, params: ReadonlyArray<unknown>) => run(sql, allRows(params))
  const transformed = (
    sql: string,
    params: ReadonlyArray<unknown>,
    transformRows: (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined
  ) => transformRows === undefined ? rows(sql, params) : Effect.map(rows(sql, params), (all) => transformRows(all))
  const connection: Connection = {
    execute: transformed,
    executeUnprepared: (sql, params, transformRows) => transformed(sql, params ?? [], transformRows),
    executeRaw: (sql, params) =>
      run(sql, (prepared) => prepared.shape === null ? runWrite(prepared, params) : allRows(params)(prepared)),
    executeValues: (sql, params) => run(sql, answered(params, (_, values) => values)),
    executeStream: () => Stream.dieMessage("streaming is not supported by this SQLite client")
  }
  return { connection, rowsNow }
}
