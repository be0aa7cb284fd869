import { Effect, Option, Schema, Stream } from "effect"
import { NotFound } from "../../api/errors.js"
import type { VectorSpace } from "../../domain/records.js"
import { USER_ORDER, type RowBatch, type RowKey } from "../../storage/transfer/records.js"
import { type StoreError, UserStore } from "../../storage/UserStore.js"
import { nowTimestamp } from "../../util/timestamps.js"
import { STORE_SCHEMA_VERSION } from "../../version.js"
import { EXPORT_FORMAT, EXPORT_VERSION, EXPORTED_TABLES, type EndRecord, type ExportedTable, type HeaderRecord, RECORD_SCHEMAS, RECORD_TYPES, vectorBase64 } from "./exportFormat.js"
import { type ExportRow, makeForgottenFilter } from "./withoutForgotten.js"
import { span } from "../../util/span.js"

/** Rows read per statement: what an export holds in memory at once, whatever the user's size. */
export const EXPORT_PAGE_ROWS = 1_000

/** The key of a page's last row, to start the next page after; none when the page was the table's last. */
const nextKey = (batch: RowBatch): Option.Option<RowKey> => {
  const last: Record<string, unknown> | undefined = batch.rows[batch.rows.length - 1]
  if (last === undefined || batch.rows.length < EXPORT_PAGE_ROWS) return Option.none()
  return Option.some(USER_ORDER[batch.table].flatMap((column) => {
    const value = last[column]
    return typeof value === "string" || typeof value === "number" ? [value] : []
  }))
}

// Extra columns (of a schema newer than this list) are carried as they are.
const encoders = Object.fromEntries(EXPORTED_TABLES.map((table) => {
  const schema: Schema.Schema.AnyNoContext = RECORD_SCHEMAS[table]
  return [table, Schema.encodeUnknownSync(schema, { onExcessProperty: "preserve" })]
}))

const recordLine = (space: VectorSpace | null) => ({ row, table, vector }: ExportRow) => {
  const record: Record<string, unknown> = { type: RECORD_TYPES[table], ...encoders[table]?.(row) }
  if (space !== null && vector !== null) record.vector = vectorBase64(vector)
  return `${JSON.stringify(record)}\n`
}

const endRecord = (records: number): EndRecord => ({ type: "end", records })

/** A user's data as the lines of an export (exportFormat.ts), read page by page as they are sent. */
export class UserExport extends Effect.Service<UserExport>()("Memory/UserExport", {
  effect: Effect.gen(function*() {
    const store = yield* UserStore

    const pages = (userId: string, table: ExportedTable, vectors: boolean) =>
      Stream.paginateEffect<RowKey | null, RowBatch, StoreError, never>(null, (after) =>
        Effect.map(store.portability.page(userId, table, { after, limit: EXPORT_PAGE_ROWS }, vectors), (batch) => [batch, nextKey(batch)] as const))

    /** The export's lines; a user without data is not found. */
    const lines = (params: { readonly user_id: string; readonly include_vectors: boolean }) =>
      Effect.gen(function*() {
        const userId = params.user_id
        if (!(yield* store.portability.holds(userId))) {
          return yield* new NotFound({ message: `no data for user ${userId}`, details: { user_id: userId } })
        }
        const space = params.include_vectors ? yield* store.portability.space(userId) : null
        const header: HeaderRecord = {
          type: "header",
          format: EXPORT_FORMAT,
          version: EXPORT_VERSION,
          user_id: userId,
          schema_version: STORE_SCHEMA_VERSION,
          exported_at: yield* nowTimestamp,
          vectors: space
        }
        const rows = Stream.suspend(() => {
          const forgotten = makeForgottenFilter()
          // Which entities are named is known from their roles, read once before them.
          const tableRows = (table: ExportedTable) =>
            table === "entities"
              ? Stream.unwrap(Effect.as(Stream.runForEach(pages(userId, "fact_entity_roles", false), (batch) => Effect.sync(() => forgotten.noteRoles(batch))), pages(userId, table, false)))
              : pages(userId, table, space !== null)
          let written = 0
          const records = Stream.fromIterable(EXPORTED_TABLES).pipe(
            Stream.flatMap(tableRows),
            Stream.mapConcat(forgotten.rows),
            Stream.map(recordLine(space)),
            Stream.tap(() => Effect.sync(() => written++))
          )
          // The last line says how many came before it: a file cut short is told from a whole one.
          return Stream.concat(records, Stream.sync(() => `${JSON.stringify(endRecord(written))}\n`))
        })
        return Stream.concat(Stream.succeed(`${JSON.stringify(header)}\n`), rows)
      }).pipe(span("UserExport.lines"))

    return { lines }
  })
}) {}
