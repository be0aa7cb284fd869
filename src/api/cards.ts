import { Schema } from "effect"

/** What a client can do next with a card (the reference service's MCP tool names). */
export const CardAction = Schema.Union(
  Schema.Struct({ tool: Schema.Literal("memory.tool.result"), memory_id: Schema.String }),
  Schema.Struct({ tool: Schema.Literal("memory.tool.session"), session_id: Schema.String }),
  Schema.Struct({ tool: Schema.Literal("memory.tool.explore"), start_id: Schema.String, start_type: Schema.Literal("memory") })
)
export type CardAction = typeof CardAction.Type

const PreviewFields = {
  /** The first 700 characters of `content`. */
  content_preview: Schema.String,
  content_preview_source: Schema.Literal("FactEvent", "SourceSpan", "RawTurn"),
  content_preview_truncated: Schema.Boolean,
  content_preview_is_source_excerpt: Schema.Boolean
}

const Optional = Schema.NullOr(Schema.String)

/** Fields a fact card and an evidence card share. */
const CommonFields = {
  id: Schema.String,
  evidence_id: Schema.String,
  source_span_ids: Schema.Array(Schema.String),
  content: Schema.String,
  ...PreviewFields,
  extracted_support_text: Optional,
  kind: Schema.String,
  source_type: Schema.String,
  status: Schema.String,
  version_status: Schema.String,
  superseded_by: Optional,
  /** "" when the card has no source turn. */
  session_id: Schema.String,
  turn_id: Schema.String,
  occurred_start: Optional,
  valid_from: Optional,
  valid_until: Optional,
  time_precision: Optional,
  predicate_canonical: Optional,
  entity_roles: Schema.Record({ key: Schema.String, value: Schema.Array(Schema.String) }),
  confidence: Schema.NullOr(Schema.Number),
  actions: Schema.Array(CardAction)
}

/** A memory as the graph routes show it (entity_timeline items, explore nodes). */
export class FactCard extends Schema.Class<FactCard>("FactCard")({
  ...CommonFields,
  fact_id: Schema.String,
  predicate_raw: Schema.String
}) {}

/** A piece of evidence as refine returns it: a fact, or a raw turn (fact_id and predicate_raw null). */
export class EvidenceCard extends Schema.Class<EvidenceCard>("EvidenceCard")({
  ...CommonFields,
  fact_id: Optional,
  predicate_raw: Optional,
  role: Schema.String,
  session_time: Optional,
  rank: Schema.Struct({ tier: Schema.Int, score: Schema.Number }),
  routes: Schema.Array(Schema.Struct({ route: Schema.String, rank: Schema.Int, score: Schema.Number }))
}) {}
