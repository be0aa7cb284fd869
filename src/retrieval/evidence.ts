import { type FactRole, factMetadata, type FactRow, type FactSource, type TurnRow } from "../domain/records.js"
import type { Route } from "./fusion.js"

/** One piece of evidence as search returns it in a hit's `metadata` (and context renders it). */
export type EvidenceItem = Record<string, unknown> & {
  readonly evidence_id: string
  readonly fact_id: string | null
  readonly support_text: string
  readonly source_session_id: string | null
  readonly source_turn_id: string | null
  readonly source_role: string
  readonly session_time: string | null
  readonly occurred_start: string | null
  readonly kind: string
  readonly source_type: string
  readonly status: string
  readonly predicate_canonical: string | null
  readonly routes: ReadonlyArray<Route>
  readonly rank: { readonly tier: number; readonly score: number }
  // Facts only: a raw turn has no statement, entities, confidence or validity of its own.
  readonly source_span_ids?: ReadonlyArray<string>
  readonly predicate_raw?: string
  readonly extracted_support_text?: string | null
  readonly entity_roles?: Readonly<Record<string, ReadonlyArray<string>>>
  readonly confidence?: number | null
  readonly valid_from?: string | null
  readonly valid_until?: string | null
  readonly version_status?: string
  readonly superseded_by?: string | null
  readonly time_precision?: string | null
}

/** A version is current while active; otherwise its status says what became of it. */
export const versionStatus = (status: string) => status === "active" ? "current" : status

const stringOrNull = (value: unknown) => typeof value === "string" ? value : null

const SUPPORT_LIMIT = 1800

const scopeOf = (row: Pick<FactRow, "agent_id" | "run_id" | "project_id">) =>
  Object.fromEntries((["agent_id", "run_id", "project_id"] as const).flatMap((key) => row[key] === null ? [] : [[key, row[key]]]))

export const factEvidence = (
  fact: FactRow,
  sources: ReadonlyArray<FactSource>,
  roles: ReadonlyArray<FactRole>,
  ranking: { readonly routes: ReadonlyArray<Route>; readonly score: number }
): EvidenceItem => {
  const metadata = factMetadata(fact)
  const first = sources[0]
  const entityRoles: Record<string, Array<string>> = {}
  for (const { name, role } of roles) (entityRoles[role] ??= []).push(name)
  return {
    evidence_id: `ev_fact:${fact.fact_id}`,
    fact_id: fact.fact_id,
    source_span_ids: sources.map((source) => source.span_id),
    source_session_id: first?.session_id ?? fact.session_id,
    source_turn_id: first?.turn_id ?? null,
    source_role: first?.role ?? "user",
    session_time: first?.session_time ?? null,
    source_type: "fact",
    kind: fact.kind,
    status: fact.status,
    predicate_raw: fact.content,
    predicate_canonical: stringOrNull(metadata.predicate_canonical),
    support_text: stringOrNull(metadata.support_text) ?? fact.content,
    extracted_support_text: stringOrNull(metadata.extracted_support_text),
    entity_roles: entityRoles,
    scope: scopeOf(fact),
    confidence: fact.confidence,
    occurred_start: fact.occurred_at,
    valid_from: fact.valid_from,
    valid_until: fact.valid_until,
    time_precision: stringOrNull(metadata.time_precision),
    version_status: versionStatus(fact.status),
    superseded_by: fact.superseded_by,
    routes: ranking.routes,
    rank: { tier: 1, score: ranking.score }
  }
}

export const turnEvidence = (turn: TurnRow, ranking: { readonly routes: ReadonlyArray<Route>; readonly score: number }): EvidenceItem => ({
  evidence_id: `ev_raw:${turn.turn_id}`,
  fact_id: null,
  kind: "raw_turn",
  source_type: "raw_message",
  predicate_canonical: "raw_turn_recall",
  message_unit_id: turn.turn_id,
  content: turn.content,
  support_text: turn.content.slice(0, SUPPORT_LIMIT),
  unstructured_source: true,
  source_session_id: turn.session_id,
  source_turn_id: turn.turn_id,
  source_role: turn.role,
  session_time: turn.session_time,
  occurred_start: null,
  status: "active",
  scope: scopeOf(turn),
  routes: ranking.routes,
  rank: { tier: 2, score: ranking.score }
})
