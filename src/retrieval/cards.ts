import { type CardAction, EvidenceCard, FactCard } from "../api/cards.js"
import type { FactRole, FactRow, FactSource } from "../domain/records.js"
import { type EvidenceItem, factEvidence } from "./evidence.js"

const PREVIEW_CHARS = 700

type PreviewSource = FactCard["content_preview_source"]

/** Counted in code points, as the reference service slices strings. */
const preview = (content: string, source: PreviewSource) => {
  const chars = Array.from(content)
  return {
    content_preview: chars.slice(0, PREVIEW_CHARS).join(""),
    content_preview_source: source,
    content_preview_truncated: chars.length > PREVIEW_CHARS,
    content_preview_is_source_excerpt: source !== "FactEvent"
  }
}

const result = (memoryId: string): CardAction => ({ tool: "memory.tool.result", memory_id: memoryId })

/** The fields a fact's evidence item and both cards share. */
const common = (item: EvidenceItem, content: string, source: PreviewSource) => ({
  id: item.fact_id ?? item.evidence_id,
  evidence_id: item.evidence_id,
  source_span_ids: item.source_span_ids ?? [],
  content,
  ...preview(content, source),
  extracted_support_text: item.extracted_support_text ?? null,
  kind: item.kind,
  source_type: item.source_type,
  status: item.status,
  version_status: item.version_status ?? "current",
  superseded_by: item.superseded_by ?? null,
  session_id: item.source_session_id ?? "",
  turn_id: item.source_turn_id ?? "",
  occurred_start: item.occurred_start,
  valid_from: item.valid_from ?? null,
  valid_until: item.valid_until ?? null,
  time_precision: item.time_precision ?? null,
  predicate_canonical: item.predicate_canonical,
  entity_roles: item.entity_roles ?? {},
  confidence: item.confidence ?? null
})

const UNRANKED = { routes: [], score: 0 }

/** A memory with its sources and roles as a card: its content is what its source turns said, else its statement. */
export const factCard = (fact: FactRow, sources: ReadonlyArray<FactSource>, roles: ReadonlyArray<FactRole>) => {
  const item = factEvidence(fact, sources, roles, UNRANKED)
  const said = sources.map((source) => source.content).join("\n")
  return new FactCard({
    ...(said === "" ? common(item, fact.content, "FactEvent") : common(item, said, "SourceSpan")),
    fact_id: fact.fact_id,
    predicate_raw: fact.content,
    actions: [result(fact.fact_id)]
  })
}

/** A search result as a card: its content is its support text. */
export const evidenceCard = (item: EvidenceItem) => {
  const source: PreviewSource = item.fact_id === null ? "RawTurn" : item.support_text === item.predicate_raw ? "FactEvent" : "SourceSpan"
  const actions: Array<CardAction> = item.fact_id === null
    ? []
    : [result(item.fact_id), { tool: "memory.tool.explore", start_id: item.fact_id, start_type: "memory" }]
  if (item.source_session_id !== null) actions.push({ tool: "memory.tool.session", session_id: item.source_session_id })
  return new EvidenceCard({
    ...common(item, item.support_text, source),
    fact_id: item.fact_id,
    predicate_raw: item.predicate_raw ?? null,
    role: item.source_role,
    session_time: item.session_time,
    rank: item.rank,
    routes: item.routes,
    actions
  })
}
