import { Schema } from "effect"
import { localTime, MemoryIdField } from "./fields.js"

/** What a client can do next with a card (the reference service's MCP tool names). */
export const CardAction = Schema.Union(
  Schema.Struct({
    tool: Schema.Literal("memory.tool.result").annotations({ description: "Read the memory (GET /v1/memories/{memory_id})." }),
    memory_id: MemoryIdField("The memory to read")
  }),
  Schema.Struct({
    tool: Schema.Literal("memory.tool.session").annotations({ description: "Look at the session the evidence comes from." }),
    session_id: Schema.String.annotations({ description: "The session to look at." })
  }),
  Schema.Struct({
    tool: Schema.Literal("memory.tool.explore").annotations({ description: "Walk the graph from the memory (GET /v1/explore)." }),
    start_id: MemoryIdField("The memory to start from"),
    start_type: Schema.Literal("memory").annotations({ description: "What start_id names: always a memory." })
  })
).annotations({ description: "A next step a client (or an agent through MCP) can take from the card, named as the MCP tool." })
export type CardAction = typeof CardAction.Type

const Optional = (description: string) => Schema.NullOr(Schema.String).annotations({ description })

const PreviewFields = {
  content_preview: Schema.String.annotations({ description: "The first 700 characters (code points) of content." }),
  content_preview_source: Schema.Literal("FactEvent", "SourceSpan", "RawTurn").annotations({
    description: "Where content comes from: FactEvent (the memory's own statement), SourceSpan (the words of its source turns) or RawTurn (a turn, no memory)."
  }),
  content_preview_truncated: Schema.Boolean.annotations({ description: "Whether content is longer than content_preview." }),
  content_preview_is_source_excerpt: Schema.Boolean.annotations({ description: "Whether content is source words (SourceSpan, RawTurn) rather than the memory's statement." })
}

/** Fields a fact card and an evidence card share. */
const CommonFields = {
  id: Schema.String.annotations({ description: "The memory's id (fact_<uuid>), or the evidence id of a raw turn." }),
  evidence_id: Schema.String.annotations({ description: "The id to cite: ev_fact:<memory id> for a memory, ev_raw:<turn_id> for a raw turn." }),
  source_span_ids: Schema.Array(Schema.String).annotations({ description: "The source spans (parts of turns) the memory was taken from; empty for a raw turn." }),
  content: Schema.String.annotations({ description: "The card's text: what its source turns said, else the memory's statement (for a raw turn, its text)." }),
  ...PreviewFields,
  extracted_support_text: Optional("The statement as extraction wrote it; null when there is none (a raw turn, a verbatim memory)."),
  kind: Schema.String.annotations({ description: "fact, event, state, preference or profile for a memory; raw_turn for a turn." }),
  source_type: Schema.String.annotations({ description: "fact for a memory, raw_message for a raw turn." }),
  status: Schema.String.annotations({ description: "The memory's status: active, superseded or archived (a timeline shows every status); active for a raw turn." }),
  version_status: Schema.String.annotations({ description: "current while the memory is active, else its status (superseded, archived)." }),
  superseded_by: Optional("The version that superseded this one; null while current."),
  session_id: Schema.String.annotations({ description: "The session of the first source turn; \"\" when the card has no source turn." }),
  turn_id: Schema.String.annotations({ description: "The first source turn; \"\" when the card has none." }),
  occurred_start: localTime("When what it states happened or became true"),
  valid_from: localTime("From when it holds"),
  valid_until: localTime("Until when it held; null while current"),
  time_precision: Optional("The precision of its date: year, month, day or minute; null when it has none."),
  predicate_canonical: Optional("The relation the memory states, in a normalised form (raw_turn_recall for a raw turn); null when extraction gave none."),
  entity_roles: Schema.Record({ key: Schema.String, value: Schema.Array(Schema.String) }).annotations({
    description: "The entities the memory involves, by role (subject, object, …): role → names. {} for a raw turn."
  }),
  confidence: Schema.NullOr(Schema.Number).annotations({ description: "How sure extraction was, 0–1; null for a raw turn or when none was given." }),
  actions: Schema.Array(CardAction).annotations({ description: "What can be done next from this card." })
}

/** A memory as the graph routes show it (entity_timeline items, explore nodes). */
export class FactCard extends Schema.Class<FactCard>("FactCard")({
  ...CommonFields,
  fact_id: MemoryIdField("The memory's id"),
  predicate_raw: Schema.String.annotations({ description: "The memory's statement." })
}, { description: "A memory with its sources, as the graph routes show it." }) {}

/** A piece of evidence as refine returns it: a fact, or a raw turn (fact_id and predicate_raw null). */
export class EvidenceCard extends Schema.Class<EvidenceCard>("EvidenceCard")({
  ...CommonFields,
  fact_id: Optional("The memory's id (fact_<uuid>); null for a raw turn."),
  predicate_raw: Optional("The memory's statement; null for a raw turn."),
  role: Schema.String.annotations({ description: "Who said the source turn: user, assistant or system." }),
  session_time: localTime("The time of the source session"),
  rank: Schema.Struct({
    tier: Schema.Int.annotations({ description: "1 for a memory, 2 for a raw turn." }),
    score: Schema.Number.annotations({ description: "The fused ranking score: higher ranks first; comparable only within one response." })
  }).annotations({ description: "Where the evidence ranked." }),
  routes: Schema.Array(Schema.Struct({
    route: Schema.String.annotations({
      description: "The retrieval leg: lexical_facts, lexical_turns, entity, time, vector_facts, vector_turns or neighbourhood."
    }),
    rank: Schema.Int.annotations({ description: "Its rank in that leg, from 1." }),
    score: Schema.Number.annotations({ description: "What the leg scored it (for most legs, the share of the fused score its rank gave)." })
  })).annotations({ description: "Each retrieval leg that found it." })
}, { description: "A piece of evidence: a memory, or a raw turn (fact_id and predicate_raw null)." }) {}

