import type { Row, RowQuery, UserTable } from "../userRows.js"

export interface Statement {
  readonly text: string
  readonly values: ReadonlyArray<unknown>
}

/**
 * The fixtures' statements, one text for both engines: SQLite's store holds one user and binds
 * `?`; PostgreSQL's tables hold every user, so each statement also names the user, and binds `$n`.
 */
export const statements = (engine: "sqlite" | "pg", userId: string) => {
  const bound = (start: ReadonlyArray<unknown>) => {
    const values = [...start]
    const bind = (value: unknown) => {
      values.push(value)
      return engine === "pg" ? `$${values.length}` : "?"
    }
    return { values, bind }
  }
  const filter = (where: Row | undefined) => {
    const { bind, values } = bound(engine === "pg" ? [userId] : [])
    const conditions = [...(engine === "pg" ? ["user_id = $1"] : []), ...Object.entries(where ?? {}).map(([column, value]) => `${column} = ${bind(value)}`)]
    return { text: conditions.length === 0 ? "" : ` WHERE ${conditions.join(" AND ")}`, values }
  }
  return {
    select: (table: UserTable, query: RowQuery): Statement => {
      const where = filter(query.where)
      const order = query.orderBy === undefined ? "" : ` ORDER BY ${query.orderBy}`
      return { text: `SELECT ${query.columns.join(", ")} FROM ${table}${where.text}${order}`, values: where.values }
    },
    count: (table: UserTable, where: Row | undefined): Statement => {
      const filtered = filter(where)
      return { text: `SELECT count(*) AS n FROM ${table}${filtered.text}`, values: filtered.values }
    },
    insert: (table: UserTable, row: Row): Statement => {
      const columns = [...(engine === "pg" ? ["user_id"] : []), ...Object.keys(row)]
      const { bind, values } = bound([])
      const placeholders = [...(engine === "pg" ? [bind(userId)] : []), ...Object.values(row).map(bind)]
      return { text: `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${placeholders.join(", ")})`, values }
    }
  }
}
