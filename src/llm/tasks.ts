import { Schema } from "effect"
import { FACT_KINDS } from "../domain/facts.js"

/**
 * The structured tasks the service asks of an LLM: for each, the input (sent as the user
 * message, JSON) and the reply's schema (sent as the provider's JSON schema, decoded on return).
 * Reply schemas carry no optional fields and no numeric bounds, which every provider's
 * JSON-schema mode accepts; bounds are applied after decoding.
 */

export const ENTITY_ROLES = ["subject", "object", "location", "participant", "other"] as const

// ---- extraction: a session's turns → atomic facts ----

export interface ExtractionInput {
  readonly session_id: string
  /** Local time of the session, `YYYY-MM-DDTHH:MM:SS`: relative dates are resolved against it. */
  readonly session_time: string
  readonly turns: ReadonlyArray<{ readonly turn: number; readonly role: string; readonly text: string }>
}

export const ExtractedEntity = Schema.Struct({
  name: Schema.String,
  role: Schema.Literal(...ENTITY_ROLES)
})

export const ExtractedFact = Schema.Struct({
  /** One self-contained sentence, naming the user as "the user". */
  statement: Schema.String,
  kind: Schema.Literal(...FACT_KINDS),
  /** 0..1 */
  confidence: Schema.Number,
  /** When it happened or became true: `YYYY`, `YYYY-MM`, `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM`; "" when unknown. */
  occurred: Schema.String,
  /** Numbers of the turns it comes from. */
  source_turns: Schema.Array(Schema.Int),
  entities: Schema.Array(ExtractedEntity),
  /** A short snake_case relation, e.g. `lives_in`; "" when none fits. */
  predicate: Schema.String
})
export type ExtractedFact = typeof ExtractedFact.Type

export const Extraction = Schema.Struct({ facts: Schema.Array(ExtractedFact) })

// ---- reconciliation: new facts against similar current ones ----

export interface ReconcileInput {
  readonly session_id: string
  readonly facts: ReadonlyArray<{
    readonly index: number
    readonly statement: string
    readonly candidates: ReadonlyArray<{ readonly id: string; readonly statement: string; readonly kind: string; readonly valid_from: string }>
  }>
}

export const RECONCILE_ACTIONS = ["add", "update", "contradict", "duplicate"] as const

export const Reconciliation = Schema.Struct({
  decisions: Schema.Array(Schema.Struct({
    index: Schema.Int,
    action: Schema.Literal(...RECONCILE_ACTIONS),
    /** The candidate updated, contradicted or duplicated; "" for add. */
    target_id: Schema.String,
    reason: Schema.String
  }))
})
export type Reconciliation = typeof Reconciliation.Type

// ---- answering: a planner loop over retrieval, then a reader ----

export interface EvidenceLine {
  readonly id: string
  readonly text: string
  readonly date: string
}

export interface PlanInput {
  readonly question: string
  readonly current_date: string
  readonly step: number
  readonly max_steps: number
  readonly searches: ReadonlyArray<{ readonly query: string; readonly found: number }>
  readonly evidence: ReadonlyArray<EvidenceLine>
}

export const Plan = Schema.Struct({
  action: Schema.Literal("search", "answer"),
  /** The next search query; "" when answering. */
  query: Schema.String,
  reason: Schema.String
})
export type Plan = typeof Plan.Type

export interface ReadInput {
  readonly question: string
  readonly current_date: string
  readonly evidence: ReadonlyArray<EvidenceLine>
}

export const Reading = Schema.Struct({
  answer: Schema.String,
  /** Ids of the evidence lines the answer rests on. */
  citations: Schema.Array(Schema.String),
  insufficient: Schema.Boolean,
  missing_information: Schema.String
})
export type Reading = typeof Reading.Type

// ---- maintenance: an entity's profile from its current facts ----

export interface ProfileInput {
  readonly entity: string
  readonly facts: ReadonlyArray<EvidenceLine>
}

export const Profile = Schema.Struct({
  summary: Schema.String,
  citations: Schema.Array(Schema.String)
})
export type Profile = typeof Profile.Type
