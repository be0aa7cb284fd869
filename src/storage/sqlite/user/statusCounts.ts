import Database from "better-sqlite3"

/**
 * Facts by status in one store file, read through its own read-only connection so that an
 * operator's view neither opens stores through the cache nor evicts the ones in use.
 */
export const factStatusCounts = (storeFile: string): Record<string, number> => {
  const db = new Database(storeFile, { readonly: true, fileMustExist: true })
  try {
    const rows = db.prepare("SELECT status, count(*) AS n FROM facts GROUP BY status").all() as Array<{ status: string; n: number }>
    return Object.fromEntries(rows.map((row) => [row.status, row.n]))
  } finally {
    db.close()
  }
}
