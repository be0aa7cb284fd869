import { Either, Schema } from "effect"
import { fieldErrorLine } from "../../api/fieldErrors.js"
import { emptyTables, type RowBatch, snapshotBatches } from "../../storage/transfer/records.js"
import { refusedText } from "./importedText.js"
import { EndRecord, EXPORTED_TABLES, type ExportedTable, type HeaderRecord, RECORD_SCHEMAS, RECORD_TYPES, vectorFromBase64 } from "./exportFormat.js"

/** A line of an import that is not a valid record where it stands. */
export interface InvalidLine {
  readonly line: number
  readonly message: string
}

const TABLE_OF_TYPE = new Map<string, ExportedTable>(EXPORTED_TABLES.map((table) => [RECORD_TYPES[table], table]))

/** A value decoded, or why it is not one. */
export const decodeRecord = <A, I>(schema: Schema.Schema<A, I>, value: unknown): Either.Either<A, string> =>
  Either.mapLeft(Schema.decodeUnknownEither(schema)(value), (error) => fieldErrorLine(error.issue, value))

/** A set of keys that tells a key seen before. */
const keys = (what: string) => {
  const seen = new Set<string>()
  return {
    has: (key: string) => seen.has(key),
    add: (key: string): string | undefined => {
      if (seen.has(key)) return `duplicate ${what} ${key}`
      seen.add(key)
      return undefined
    }
  }
}

const missing = (what: string, key: string, present: { readonly has: (key: string) => boolean }) => present.has(key) ? undefined : `unknown ${what} ${key}`

/**
 * Checks an import's records one line at a time, in the export's order: each is of a known type,
 * valid for its table, after the tables it refers to, unique where the stores keep it unique,
 * and refers only to rows before it; vectors are of the header's space. Holds the keys seen (not
 * the rows) and the rows of the batch being gathered.
 */
export const makeRecordValidation = (header: HeaderRecord) => {
  const sessions = keys("session"), turnIds = keys("turn"), turnSeqs = keys("turn seq"), positions = keys("turn position")
  const spans = keys("span"), factIds = keys("fact"), factSeqs = keys("fact seq"), sources = keys("fact source")
  const entityIds = keys("entity"), entitySeqs = keys("entity seq"), roles = keys("entity role"), edges = keys("edge")
  const eventSeqs = keys("event seq")
  let rank = 0
  let pending = emptyTables()
  let records = 0
  let ended = false

  const vectorOf = (record: Record<string, unknown>): Either.Either<Float32Array | null, string> => {
    const text = record.vector
    if (text === undefined) return Either.right(null)
    if (typeof text !== "string") return Either.left("vector must be a base64 string")
    if (header.vectors === null) return Either.left("a vector, but the header declares no vectors")
    const vector = vectorFromBase64(text, header.vectors.dimensions)
    return typeof vector === "string" ? Either.left(vector) : Either.right(vector)
  }

  /** Checks and gathers one record; why it is refused otherwise. */
  const gather = (table: ExportedTable, record: Record<string, unknown>): string | undefined => {
    switch (table) {
      case "sessions":
        return Either.match(decodeRecord(RECORD_SCHEMAS.sessions, record), {
          onLeft: (error) => error,
          onRight: (row) => sessions.add(row.session_id) ?? void pending.sessions.push(row)
        })
      case "turns":
        return Either.match(Either.all([decodeRecord(RECORD_SCHEMAS.turns, record), vectorOf(record)]), {
          onLeft: (error) => error,
          onRight: ([row, embedding]) =>
            missing("session", row.session_id, sessions) ?? turnIds.add(row.turn_id) ?? turnSeqs.add(String(row.seq)) ??
              positions.add(`${row.session_id} #${row.position}`) ?? void pending.turns.push({ ...row, recorded_content: null, embedding })
        })
      case "spans":
        return Either.match(decodeRecord(RECORD_SCHEMAS.spans, record), {
          onLeft: (error) => error,
          onRight: (row) => missing("turn", row.turn_id, turnIds) ?? spans.add(row.span_id) ?? void pending.spans.push(row)
        })
      case "facts":
        return Either.match(Either.all([decodeRecord(RECORD_SCHEMAS.facts, record), vectorOf(record)]), {
          onLeft: (error) => error,
          onRight: ([row, embedding]) => factIds.add(row.fact_id) ?? factSeqs.add(String(row.seq)) ?? void pending.facts.push({ ...row, embedding })
        })
      case "fact_sources":
        return Either.match(decodeRecord(RECORD_SCHEMAS.fact_sources, record), {
          onLeft: (error) => error,
          onRight: (row) =>
            missing("fact", row.fact_id, factIds) ?? missing("span", row.span_id, spans) ?? sources.add(`${row.fact_id} ${row.span_id}`) ??
              void pending.fact_sources.push(row)
        })
      case "entities":
        return Either.match(decodeRecord(RECORD_SCHEMAS.entities, record), {
          onLeft: (error) => error,
          onRight: (row) => entityIds.add(row.entity_id) ?? entitySeqs.add(String(row.seq)) ?? void pending.entities.push(row)
        })
      case "fact_entity_roles":
        return Either.match(decodeRecord(RECORD_SCHEMAS.fact_entity_roles, record), {
          onLeft: (error) => error,
          onRight: (row) =>
            missing("fact", row.fact_id, factIds) ?? missing("entity", row.entity_id, entityIds) ??
              roles.add(`${row.fact_id} ${row.entity_id} ${row.role}`) ?? void pending.fact_entity_roles.push(row)
        })
      case "edges":
        return Either.match(decodeRecord(RECORD_SCHEMAS.edges, record), {
          onLeft: (error) => error,
          onRight: (row) => missing("fact", row.src_fact_id, factIds) ?? edges.add(row.edge_id) ?? void pending.edges.push(row)
        })
      case "events":
        return Either.match(decodeRecord(RECORD_SCHEMAS.events, record), {
          onLeft: (error) => error,
          onRight: (row) => eventSeqs.add(String(row.seq)) ?? void pending.events.push(row)
        })
    }
  }

  /** Checks and gathers the record on a line; why it is refused otherwise. */
  const record = (text: string): string | undefined => {
    const parsed = Either.try((): unknown => JSON.parse(text))
    if (Either.isLeft(parsed)) return "not JSON"
    const value = parsed.right
    if (typeof value !== "object" || value === null || Array.isArray(value)) return "not a JSON object"
    const type: unknown = "type" in value ? value.type : undefined
    if (ended) return "a record after the end record"
    if (type === "end") {
      ended = true
      return Either.match(decodeRecord(EndRecord, value), {
        onLeft: (error) => error,
        onRight: (end) => end.records === records ? undefined : `the end record counts ${end.records} records, the export holds ${records}`
      })
    }
    records++
    const table = typeof type === "string" ? TABLE_OF_TYPE.get(type) : undefined
    if (table === undefined) return `unknown record type ${JSON.stringify(type)}`
    const at = EXPORTED_TABLES.indexOf(table)
    if (at < rank) return `a ${type} record after the ${RECORD_TYPES[EXPORTED_TABLES[rank]!]} records: records go in the export's order`
    rank = at
    const columns: Record<string, unknown> = { ...value }
    return refusedText(columns) ?? gather(table, columns)
  }

  /** Why the export is not whole, if it is not: it ends with its end record. */
  const finish = (): string | undefined => ended ? undefined : "the export ends before its end record: it was cut short"

  /** The rows gathered since the last call, as batches in the tables' order. */
  const take = (): ReadonlyArray<RowBatch> => {
    const batches = snapshotBatches(pending).filter((batch) => batch.rows.length > 0)
    pending = emptyTables()
    return batches
  }

  return { record, take, finish }
}
