import type { ControlTable, Row, RowQuery, UserTable } from "../userRows.js"

export interface Statement {
  readonly text: string
  readonly values: ReadonlyArray<unknown>
}

/**
 * The fixtures' statements, one text for both engines: SQLite binds `?`, PostgreSQL `$n`. `scope`
 * holds the columns every statement names on top of its own: on PostgreSQL, a user's tables hold
 * every user, so each statement of them names the user; a store file and the control tables need none.
 */
export const statements = (engine: "sqlite" | "pg", scope: Row) => {
  const bound = () => {
    const values: Array<unknown> = []
    const bind = (value: unknown) => {
      values.push(value)
      return engine === "pg" ? `$${values.length}` : "?"
    }
    return { values, bind }
  }
  const assignments = (bind: (value: unknown) => string, row: Row) => Object.entries(row).map(([column, value]) => `${column} = ${bind(value)}`)
  const filter = (bind: (value: unknown) => string, where: Row | undefined) => {
    const conditions = assignments(bind, { ...where, ...scope })
    return conditions.length === 0 ? "" : ` WHERE ${conditions.join(" AND ")}`
  }
  return {
    select: (table: UserTable | ControlTable, query: RowQuery): Statement => {
      const { bind, values } = bound()
      const order = query.orderBy === undefined ? "" : ` ORDER BY ${query.orderBy}`
      return { text: `SELECT ${query.columns.join(", ")} FROM ${table}${filter(bind, query.where)}${order}`, values }
    },
    count: (table: UserTable | ControlTable, where: Row | undefined): Statement => {
      const { bind, values } = bound()
      return { text: `SELECT count(*) AS n FROM ${table}${filter(bind, where)}`, values }
    },
    insert: (table: UserTable | ControlTable, row: Row): Statement => {
      const scoped = { ...scope, ...row }
      const { bind, values } = bound()
      const placeholders = Object.values(scoped).map(bind)
      return { text: `INSERT INTO ${table} (${Object.keys(scoped).join(", ")}) VALUES (${placeholders.join(", ")})`, values }
    },
    update: (table: UserTable | ControlTable, set: Row, where: Row): Statement => {
      const { bind, values } = bound()
      return { text: `UPDATE ${table} SET ${assignments(bind, set).join(", ")}${filter(bind, where)}`, values }
    }
  }
}
