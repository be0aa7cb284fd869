import { ELISION } from "../../domain/excerpts.js"
import type { RowBatch } from "../../storage/transfer/records.js"
import { scrubbedEvent } from "../../storage/forgetting.js"
import type { ExportedRow, ExportedTable } from "./exportFormat.js"

/** A row to export, with its vector when it has one. */
export interface ExportRow {
  readonly table: ExportedTable
  readonly row: ExportedRow<ExportedTable>
  readonly vector: Float32Array | null
}

/**
 * What an export never carries, decided as the rows pass in their tables' order (facts before
 * what refers to them): archived memories with their sources, entity roles and edges; a turn's
 * text as recorded (the text shown has archived memories' words elided); entities no exported
 * memory names (those of archived or purged memories only), with their edges; an entity's
 * profile that is an archived memory; and in the events about archived memories their
 * statements and words, as a purge leaves them. Purged rows are gone from the store already.
 * Holds the ids and statements of the archived memories seen and the ids of entities named.
 */
export const makeForgottenFilter = () => {
  const archived = new Map<string, string>()
  const named = new Set<string>(), unnamed = new Set<string>()
  const kept = (id: string) => !archived.has(id) && !unnamed.has(id)

  /** Notes the entities that exported memories name: read before the entities are. */
  const noteRoles = (batch: RowBatch) => {
    if (batch.table !== "fact_entity_roles") return
    for (const role of batch.rows) if (kept(role.fact_id)) named.add(role.entity_id)
  }

  const rows = (batch: RowBatch): ReadonlyArray<ExportRow> => {
    switch (batch.table) {
      case "applied_jobs":
        return []
      case "facts":
        return batch.rows.flatMap(({ embedding, ...row }) => {
          if (row.status !== "archived") return [{ table: batch.table, row, vector: embedding }]
          archived.set(row.fact_id, row.content)
          return []
        })
      case "turns":
        return batch.rows.map(({ embedding, recorded_content: _, ...row }) => ({ table: batch.table, row, vector: embedding }))
      case "fact_sources":
        return batch.rows.filter((row) => kept(row.fact_id)).map((row) => ({ table: batch.table, row, vector: null }))
      case "fact_entity_roles":
        return batch.rows.filter((row) => kept(row.fact_id)).map((row) => ({ table: batch.table, row, vector: null }))
      case "edges":
        return batch.rows.filter((row) => kept(row.src_fact_id) && kept(row.dst_id)).map((row) => ({ table: batch.table, row, vector: null }))
      case "entities":
        return batch.rows.flatMap((row) => {
          if (!named.has(row.entity_id)) {
            unnamed.add(row.entity_id)
            return []
          }
          return [{ table: batch.table, row: row.profile !== null && !kept(row.profile) ? { ...row, profile: null } : row, vector: null }]
        })
      case "events":
        return batch.rows.map((row) => {
          const statement = row.memory_id === null ? undefined : archived.get(row.memory_id)
          const scrubbed = statement === undefined ? row : { ...row, ...scrubbedEvent(row, [{ text: statement, marker: ELISION }]) }
          return { table: batch.table, row: scrubbed, vector: null }
        })
      case "sessions":
      case "spans":
        return batch.rows.map((row) => ({ table: batch.table, row, vector: null }))
    }
  }

  return { noteRoles, rows }
}
