import { Tool, Toolkit } from "@effect/ai"
import { Schema } from "effect"
import { EntityTimeline, ExploreResult, RefineResponse } from "../api/GraphApi.js"
import { Degraded } from "../api/RetrievalApi.js"

/** Required text: JSON Schema says so too, so a host can refuse a blank call before sending it. */
const Text = (description: string) => Schema.String.pipe(Schema.pattern(/\S/)).annotations({ description })
const OptionalText = (description: string) => Schema.optional(Schema.String.annotations({ description }))
/** Numbers are clamped into range by the handler rather than refused, as the reference does. */
const OptionalInt = (description: string) => Schema.optional(Schema.Number.annotations({ description }))

const UserId = OptionalText("The user whose memory to use; defaults to SERVICE_USER_ID.")
const ProjectId = OptionalText("Narrow to one project; defaults to SERVICE_PROJECT_ID.")
const Record = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** Tool errors are the one line `"<code>: <message>"`. */
const failure = Schema.String

export const SearchMemory = Tool.make("search_memory", {
  description: "Search the user's long-term memory (no LLM call). Returns the matching facts with their evidence, and any retrieval leg that could not run.",
  parameters: { query: Text("What to look for."), user_id: UserId, top_k: OptionalInt("How many hits (default 10; 1..100)."), project_id: ProjectId },
  success: Schema.Struct({ hits: Schema.Array(Record), degraded: Schema.Array(Degraded) }),
  failure
}).annotate(Tool.Readonly, true)

export const GetContext = Tool.make("get_context", {
  description: "A prompt-ready block of cited memories relevant to a query, within a token budget (no LLM call).",
  parameters: { query: Text("What the context is for."), user_id: UserId, token_budget: OptionalInt("Token budget (default 2000; 100..32000)."), project_id: ProjectId },
  success: Schema.Struct({ text: Schema.String, citations: Schema.Array(Schema.String), evidence_count: Schema.Int, degraded: Schema.Array(Degraded) }),
  failure
}).annotate(Tool.Readonly, true)

export const MemorySummary = Schema.Struct({
  id: Schema.String,
  content: Schema.String,
  kind: Schema.NullOr(Schema.String),
  status: Schema.NullOr(Schema.String),
  occurred_at: Schema.NullOr(Schema.String),
  valid_from: Schema.NullOr(Schema.String),
  valid_until: Schema.NullOr(Schema.String),
  confidence: Schema.NullOr(Schema.Number)
})

export const ListMemories = Tool.make("list_memories", {
  description: "List the user's current memories, newest first, a page at a time.",
  parameters: { user_id: UserId, limit: OptionalInt("Page size (default 50; 1..200)."), offset: OptionalInt("Memories to skip (default 0).") },
  success: Schema.Struct({ total: Schema.Int, memories: Schema.Array(MemorySummary) }),
  failure
}).annotate(Tool.Readonly, true)

export const EntityTimelineTool = Tool.make("entity_timeline", {
  description: "Everything remembered about an entity (a person, place, thing), oldest first.",
  parameters: { entity_id: Text("The entity's name, or part of it."), user_id: UserId },
  success: EntityTimeline,
  failure
}).annotate(Tool.Readonly, true)

export const ExploreMemory = Tool.make("explore_memory", {
  description: "The graph of memories linked to one memory: related facts and the edges between them.",
  parameters: {
    start_id: Text("The memory (fact id) to start from."),
    user_id: UserId,
    depth: OptionalInt("How many hops (default 1; 1..3)."),
    limit: OptionalInt("At most this many edges (default 25; 1..100).")
  },
  success: ExploreResult,
  failure
}).annotate(Tool.Readonly, true)

export const RefineSearch = Tool.make("refine_search", {
  description: "Search narrowed by filters: an entity, a session, a minimum confidence, a date range (no LLM call).",
  parameters: {
    query: Text("What to look for."),
    user_id: UserId,
    top_k: OptionalInt("How many items (default 10; 1..100)."),
    entity: OptionalText("Only memories linked to an entity whose name contains this."),
    session_id: OptionalText("Only memories from this session."),
    min_confidence: Schema.optional(Schema.Number.annotations({ description: "Only memories at least this confident (0..1)." })),
    occurred_from: OptionalText("Only memories on or after this date (YYYY[-MM[-DD]])."),
    occurred_to: OptionalText("Only memories on or before this date (YYYY[-MM[-DD]]).")
  },
  success: RefineResponse,
  failure
}).annotate(Tool.Readonly, true)

const Message = Schema.Struct({
  role: Schema.optional(Schema.Literal("user", "assistant", "system").annotations({ description: "Who said it (default user)." })),
  content: Schema.String
})

export const AddMemories = Tool.make("add_memories", {
  description: "Remember a conversation: stores the messages and extracts facts from them.",
  parameters: {
    messages: Schema.Array(Message).pipe(Schema.minItems(1)).annotations({ description: "The messages, in order." }),
    user_id: UserId,
    session_id: OptionalText("The conversation's id (default mcp_<random>)."),
    session_time: OptionalText("When it took place, ISO 8601 (default now, UTC)."),
    project_id: ProjectId
  },
  success: Schema.Struct({ session_id: Schema.String, turns_written: Schema.Int, spans_written: Schema.Int, facts_extracted: Schema.Int }),
  failure
})

export const DeleteMemory = Tool.make("delete_memory", {
  description: "Forget one memory (archived: it stops being recalled, its history is kept).",
  parameters: { memory_id: Text("The memory's id."), user_id: UserId },
  success: Schema.Struct({ id: Schema.String, deleted: Schema.Boolean, already_deleted: Schema.Boolean }),
  failure
}).annotate(Tool.Destructive, true)

export const ReadTools = Toolkit.make(SearchMemory, GetContext, ListMemories, EntityTimelineTool, ExploreMemory, RefineSearch)

/** The write tools exist only when SERVICE_MCP_ALLOW_WRITE allows them: never listed otherwise. */
export const AllTools = Toolkit.merge(ReadTools, Toolkit.make(AddMemories, DeleteMemory))
