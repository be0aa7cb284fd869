import { Schema } from "effect"
import { factMetadata } from "../../domain/records.js"
import type { UserRow, UserTable } from "../../storage/transfer/records.js"

/**
 * The records of a user's export, one JSON object a line: a header first, then the user's rows
 * table by table (references before their referrers), each tagged with its `type`, and an end
 * record counting them last. The columns
 * are the transfer records' (src/storage/transfer/records.ts), JSON text columns as objects,
 * vectors as base64 float32 (little-endian) beside their rows.
 */

export const EXPORT_FORMAT = "memory-service.user-export"
export const EXPORT_VERSION = 1

/** The tables exported, in their order; a job's recorded result stays with the deployment that ran it. */
export type ExportedTable = Exclude<UserTable, "applied_jobs">

export const EXPORTED_TABLES: ReadonlyArray<ExportedTable> = [
  "sessions", "turns", "spans", "facts", "fact_sources", "entities", "fact_entity_roles", "edges", "events"
]

/** Each table's record type. */
export const RECORD_TYPES = {
  sessions: "session",
  turns: "turn",
  spans: "span",
  facts: "fact",
  fact_sources: "fact_source",
  entities: "entity",
  fact_entity_roles: "entity_role",
  edges: "edge",
  events: "event"
} as const satisfies Record<ExportedTable, string>

export type RecordType = typeof RECORD_TYPES[ExportedTable]

/** A row as exported: no vector (it travels beside), and a turn without its text as recorded (archived memories' words). */
export type ExportedRow<T extends ExportedTable> = Omit<UserRow<T>, "embedding" | "recorded_content">

const Text = Schema.String
const NullableText = Schema.NullOr(Schema.String)
const Seq = Schema.Int.pipe(Schema.positive())
/** PostgreSQL's `integer`, which holds a turn's position and a span's offsets. */
const INTEGER_MAX = 2_147_483_647
const Offset = Schema.Int.pipe(Schema.between(0, INTEGER_MAX))
/** A turn's position, with room for the turns a session goes on with (each the last one's plus one). */
const Position = Schema.Int.pipe(Schema.between(0, 1_000_000_000))

/** A JSON object kept as text by the stores, exported as the object. */
const JsonObjectText = Schema.transform(Schema.Record({ key: Schema.String, value: Schema.Unknown }), Schema.String, {
  strict: true,
  decode: (object) => JSON.stringify(object),
  encode: (text) => factMetadata({ metadata: text })
})

const scope = { agent_id: NullableText, run_id: NullableText, project_id: NullableText }

export const VectorSpaceRecord = Schema.Struct({ model: Schema.NonEmptyString, dimensions: Schema.Int.pipe(Schema.between(1, 65_536)) })

export const HeaderRecord = Schema.Struct({
  type: Schema.Literal("header"),
  format: Schema.Literal(EXPORT_FORMAT),
  version: Schema.Literal(EXPORT_VERSION),
  user_id: Text,
  /** The exporting store's schema version. */
  schema_version: Schema.Int,
  exported_at: Text,
  /** The space of the vectors beside turns and facts; none when the export carries none. */
  vectors: Schema.NullOr(VectorSpaceRecord)
})
export type HeaderRecord = typeof HeaderRecord.Type

/** The last line: how many records came between the header and it. */
export const EndRecord = Schema.Struct({ type: Schema.Literal("end"), records: Schema.Int.pipe(Schema.nonNegative()) })
export type EndRecord = typeof EndRecord.Type

/**
 * Each table's columns as exported (the record's `type` and a row's `vector` aside). Numbers are
 * finite: JSON's 1e999 parses as Infinity, which the stores do not keep alike.
 */
export const RECORD_SCHEMAS = {
  sessions: Schema.Struct({ session_id: Text, session_time: NullableText, created_at: Text }),
  turns: Schema.Struct({
    seq: Seq,
    turn_id: Text,
    session_id: Text,
    position: Position,
    role: Text,
    content: Text,
    ...scope,
    created_at: Text
  }),
  spans: Schema.Struct({ span_id: Text, turn_id: Text, start_offset: Offset, end_offset: Offset }),
  facts: Schema.Struct({
    seq: Seq,
    fact_id: Text,
    content: Text,
    kind: Text,
    status: Text,
    session_id: NullableText,
    occurred_at: NullableText,
    valid_from: NullableText,
    valid_until: NullableText,
    confidence: Schema.NullOr(Schema.Finite),
    metadata: JsonObjectText,
    ...scope,
    superseded_by: NullableText,
    created_at: Text,
    updated_at: Text
  }),
  fact_sources: Schema.Struct({ fact_id: Text, span_id: Text }),
  entities: Schema.Struct({
    seq: Seq,
    entity_id: Text,
    name: Text,
    normalized_name: Text,
    profile: NullableText,
    profile_stale: Schema.Boolean,
    updated_at: Text
  }),
  fact_entity_roles: Schema.Struct({ fact_id: Text, entity_id: Text, role: Text }),
  edges: Schema.Struct({
    edge_id: Text,
    src_fact_id: Text,
    dst_id: Text,
    edge_type: Text,
    predicate: NullableText,
    confidence: Schema.NullOr(Schema.Finite),
    metadata: JsonObjectText,
    created_at: Schema.Finite
  }),
  // The event's own type is `event_type`: `type` names the record.
  events: Schema.Struct({
    seq: Seq,
    event_id: Text,
    ts: Text,
    type: Schema.propertySignature(Text).pipe(Schema.fromKey("event_type")),
    memory_id: NullableText,
    session_id: NullableText,
    reason: NullableText,
    details: JsonObjectText,
    agent_id: NullableText,
    run_id: NullableText,
    project_id: NullableText
  })
} satisfies { readonly [T in ExportedTable]: { readonly Type: ExportedRow<T> } }

/** A vector as exported: its float32 values' little-endian bytes in base64. */
export const vectorBase64 = (vector: Float32Array) => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString("base64")

/** A vector from base64, or why it is not one of the dimensions. */
export const vectorFromBase64 = (text: string, dimensions: number): Float32Array | string => {
  const bytes = Buffer.from(text, "base64")
  if (bytes.length !== dimensions * 4 || bytes.toString("base64") !== text) return `vector is not ${dimensions} float32 values in base64`
  return new Float32Array(Uint8Array.from(bytes).buffer)
}
