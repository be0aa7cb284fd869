import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { JSONSchema, Schema } from "effect"
import { Authentication } from "./Authentication.js"
import { ScopeKeysInQuery } from "./ScopeKeysInQuery.js"
import {
  ConfigInvalidWire,
  ConflictWire,
  ForbiddenWire,
  IngestFailedWire,
  InvalidScopeWire,
  NotFoundWire,
  NotImplementedWire,
  ProviderFailureWire,
  StoreUnavailableWire,
  UnprocessableWire
} from "./errors.js"
import {
  asyncMode,
  JsonObject,
  limitParam,
  localTime,
  MemoryIdField,
  offsetParam,
  PageFields,
  scopeKey,
  scopeKeyParam,
  scopeStamp,
  UserId,
  UserIdEcho
} from "./fields.js"
import { Content, Text } from "./text.js"
import { forbidExtra, QueryBoolean } from "./validation.js"

export const Role = Schema.Literal("user", "assistant", "system")

export const Message = Schema.Struct({
  role: Schema.optionalWith(Role.annotations({ description: "Who said it: user (default), assistant or system." }), {
    default: () => "user" as const
  }),
  content: Content.annotations({
    description: "What was said, at most 512 KiB of UTF-8, without NUL or lone surrogates. An empty turn is skipped."
  })
}).annotations({ ...forbidExtra, description: "One turn of a conversation." })

/** The scope every request carries: a user, optionally narrowed to an agent, run or project. */
export const ScopeFields = {
  user_id: UserId,
  agent_id: scopeKey("agent_id"),
  run_id: scopeKey("run_id"),
  project_id: scopeKey("project_id")
}

/** The scope keys as query parameters, for a route whose body names the user. */
export const ScopeKeysQuery = {
  agent_id: scopeKeyParam("agent_id"),
  run_id: scopeKeyParam("run_id"),
  project_id: scopeKeyParam("project_id")
}

/** The scope as query parameters (GET and DELETE routes). */
export const ScopeQuery = { user_id: UserId, ...ScopeKeysQuery }

/** A memory's id in a path. */
const MemoryIdPath = Schema.Struct({ memory_id: Text.annotations({ description: "The memory's id (fact_<uuid>), as list, search or an ingest's job gave it." }) })

/**
 * A session's id, as the client chooses it. Its length is bounded because it is part of keys
 * PostgreSQL indexes in a B-tree (turn and span ids are made from it), whose entries cannot pass
 * 2704 bytes: 512 UTF-16 units are at most 1536 bytes of UTF-8.
 */
export const MOST_SESSION_ID_UNITS = 512

export const SessionId = Text.pipe(Schema.maxLength(MOST_SESSION_ID_UNITS))

const sessionIdField = Schema.optional(Schema.NullOr(SessionId).annotations({
  description: `Groups turns into one conversation, at most ${MOST_SESSION_ID_UNITS} characters; absent or null: a new 32-hex id. A session sent in several requests continues its turn positions.`
}))

export const SessionTime = Schema.NullOr(Schema.Union(Text, Schema.Number)).annotations({
  description: "When the conversation happened, the anchor of its relative dates (\"last week\"): ISO-8601 full or partial (kept at its precision), epoch seconds, \"YYYY/MM/DD (Weekday) HH:MM\" or \"1:56 pm on 8 May, 2023\". Absent or null: now. Anything else is 400 ingest_failed."
})

const Messages = Schema.Array(Message).pipe(Schema.minItems(1)).annotations({
  description: "The conversation's turns, in order: at least one."
})

const infer = Schema.optionalWith(
  Schema.Boolean.annotations({
    description: "true (default) extracts facts with the configured LLM and reconciles them with current memories (400 config_invalid without one); false stores the turns verbatim, extracts nothing and needs no LLM."
  }),
  { default: () => true }
)

export const AddMemoriesRequest = Schema.Struct({
  ...ScopeFields,
  messages: Messages,
  session_id: sessionIdField,
  session_time: Schema.optional(SessionTime),
  infer,
  async_mode: asyncMode(true)
}).annotations({
  ...forbidExtra,
  examples: [{
    user_id: "alice",
    agent_id: "travel-assistant",
    messages: [
      { role: "user", content: "I moved to Lisbon in March, and I start at the new office on Monday." },
      { role: "assistant", content: "Congratulations! How are you finding Lisbon so far?" }
    ],
    session_id: "trip-2024-03",
    session_time: "2024-03-05T18:30",
    infer: false,
    async_mode: false
  }]
})
export type AddMemoriesRequest = typeof AddMemoriesRequest.Type

/** The session a write went into, given or generated. */
const WrittenSessionId = Schema.String.annotations({ description: "The session the turns were written to: the one given, or the id generated for it." })

export class AddMemoriesResult extends Schema.Class<AddMemoriesResult>("AddMemoriesResult")({
  session_id: WrittenSessionId,
  facts_extracted: Schema.Int.annotations({ description: "Facts extracted from the turns, each added, superseding a current memory or merged into one it repeats; 0 with infer false." }),
  spans_written: Schema.Int.annotations({ description: "Source spans written: one per non-empty turn." }),
  turns_written: Schema.Int.annotations({ description: "Non-empty turns written." })
}, { description: "What a synchronous ingest wrote." }) {}

export class JobAccepted extends Schema.Class<JobAccepted>("JobAccepted")({
  job_id: Schema.String.annotations({ description: "The job to poll at GET /v1/jobs/{job_id} (32 hex characters)." }),
  status: Schema.Literal("pending").annotations({ description: "Always pending: the job is stored and waiting to run." }),
  session_id: Schema.String.annotations({ description: "The session the turns will be written to; \"\" for a batch, whose sessions are in the job's result." })
}, { description: "An ingest accepted as a job: the request was validated and its user's store opened before this answer." }) {}

export class Memory extends Schema.Class<Memory>("Memory")({
  id: MemoryIdField("The memory's id"),
  user_id: UserIdEcho,
  agent_id: scopeStamp("agent_id"),
  run_id: scopeStamp("run_id"),
  project_id: scopeStamp("project_id"),
  content: Schema.String.annotations({
    description: "The memory's statement: one self-contained fact as extracted, or a correction's text as given when no LLM is configured."
  }),
  kind: Schema.NullOr(Schema.String).annotations({
    description: "What the memory is: fact, event, state or preference (these two may change over time), or profile (an entity's summary, written by dream)."
  }),
  status: Schema.NullOr(Schema.String).annotations({
    description: "active (the current version) or superseded (a newer version replaced it, see valid_until); archived memories are not shown."
  }),
  session_id: Schema.NullOr(Schema.String).annotations({ description: "The session of the memory's first source turn; null when it has none." }),
  occurred_at: localTime("When what it states happened or became true"),
  valid_from: localTime("From when it holds: occurred_at, else the session's time"),
  valid_until: localTime("Until when it held: set when a newer version superseded it, to when that one became true (its date, else its session's time); null while current"),
  confidence: Schema.NullOr(Schema.Number).annotations({ description: "How sure extraction was that it holds, 0–1; null when none was given." }),
  metadata: JsonObject(
    "What was recorded with the memory, free-form: e.g. support_text (the words of its source), predicate_canonical, time_precision (year, month, day or minute), time_source, scope; for a profile profile_of, citations and sources."
  )
}, { description: "A memory: one fact about the user, with its validity and provenance." }) {}

/** One session of a batch: the fields of a single add that describe a conversation. */
export const BatchSession = Schema.Struct({
  messages: Messages,
  session_id: sessionIdField,
  session_time: Schema.optional(SessionTime)
}).annotations({ ...forbidExtra, description: "One conversation of a batch, ingested on its own." })
export type BatchSession = typeof BatchSession.Type

export const BATCH_MAX_SESSIONS = 500

export const BatchAddRequest = Schema.Struct({
  ...ScopeFields,
  // Each session is validated on its own, so one malformed session fails alone, as an item.
  sessions: Schema.Array(Schema.Unknown.annotations({ jsonSchema: JSONSchema.make(BatchSession) })).pipe(
    Schema.minItems(1),
    Schema.maxItems(BATCH_MAX_SESSIONS)
  ).annotations({
    description: `The conversations, 1–${BATCH_MAX_SESSIONS}. Each is validated and ingested on its own: a malformed one fails as its item of the report, not the whole batch.`
  }),
  infer,
  async_mode: asyncMode(true)
}).annotations({
  ...forbidExtra,
  examples: [{
    user_id: "alice",
    sessions: [
      { session_id: "s1", session_time: "2024-03-05", messages: [{ role: "user", content: "I moved to Lisbon last week." }] },
      {
        session_id: "s2",
        session_time: "2024-04-12",
        messages: [
          { role: "user", content: "My sister Ana is visiting in May." },
          { role: "assistant", content: "Lovely, will she stay with you?" }
        ]
      }
    ],
    infer: false,
    async_mode: false
  }]
})
export type BatchAddRequest = typeof BatchAddRequest.Type

export class BatchItemResult extends Schema.Class<BatchItemResult>("BatchItemResult")({
  index: Schema.Int.annotations({ description: "The session's position in the request's sessions, from 0." }),
  ok: Schema.Boolean.annotations({ description: "Whether the session was ingested." }),
  session_id: Schema.NullOr(Schema.String).annotations({ description: "The session written; null when the session failed." }),
  facts_extracted: Schema.Int.annotations({ description: "Facts extracted from the session; 0 when it failed or with infer false." }),
  error: Schema.NullOr(Schema.String).annotations({ description: "Why the session failed, as \"<code>: <message>\"; null when ok." })
}, { description: "What became of one session of a batch." }) {}

export class BatchAddResult extends Schema.Class<BatchAddResult>("BatchAddResult")({
  succeeded: Schema.Int.annotations({ description: "Sessions ingested." }),
  failed: Schema.Int.annotations({ description: "Sessions that failed, each with its error in results." }),
  results: Schema.Array(BatchItemResult).annotations({ description: "One item per session, in the request's order." })
}, { description: "The per-session report of a batch." }) {}

export class MemoryList extends Schema.Class<MemoryList>("MemoryList")({
  memories: Schema.Array(Memory).annotations({ description: "The page's memories, oldest first." }),
  ...PageFields
}, { description: "A page of a user's current memories." }) {}

export const ListMemoriesQuery = Schema.Struct({ ...ScopeQuery, offset: offsetParam, limit: limitParam(500, 50) })

/** The query of both deletes: the scope, and `purge` (off by default: archive). */
const DeleteQuery = Schema.Struct({
  ...ScopeQuery,
  purge: Schema.optionalWith(
    QueryBoolean.annotations({
      description: "false (default) archives; true erases for good, only when SERVICE_ALLOW_PURGE is on (else 403 forbidden, and nothing changes). Read as true/1/yes/on/t/y or false/0/no/off/f/n, any case."
    }),
    { default: () => false }
  )
})

export class DeleteResult extends Schema.Class<DeleteResult>("DeleteResult")({
  id: Schema.String.annotations({ description: "The id from the path, echoed." }),
  deleted: Schema.Boolean.annotations({ description: "Whether a memory by that id exists (archived now or earlier, or purged); false for an unknown id." }),
  already_deleted: Schema.Boolean.annotations({ description: "Archive only: the memory was archived before and nothing was written. Always false with purge." }),
  purged: Schema.Boolean.annotations({ description: "Whether purge=true was honoured (even for an unknown id)." }),
  cascaded: Schema.Record({ key: Schema.String, value: Schema.Int }).annotations({
    description: "Archive: {}. Purge: counts of what went with the memory: vectors, fact_entity_roles, fact_edges, fact_sources, versions (the memory rows erased: the memory, the versions it superseded, the profiles citing them), turns_redacted, and under the reference service's names fact_events (= versions) and chroma_vectors (= vectors); all 0 for an unknown id."
  })
}, { description: "What a delete did." }) {}

export const UpdateMemoryRequest = Schema.Struct({
  ...ScopeFields,
  content: Content.pipe(Schema.minLength(1)).annotations({
    description: "The corrected statement, kept as a one-turn user session that becomes the new version's source; text that is only blank is 422 unprocessable."
  }),
  session_id: sessionIdField,
  session_time: Schema.optional(SessionTime)
}).annotations({
  ...forbidExtra,
  examples: [{ user_id: "alice", content: "Alice lives in Lisbon, not Porto.", session_time: "2024-06-01" }]
})
export type UpdateMemoryRequest = typeof UpdateMemoryRequest.Type

export class UpdateResult extends Schema.Class<UpdateResult>("UpdateResult")({
  memory: Memory.annotations({ description: "The new version, now current." }),
  superseded_id: MemoryIdField("The corrected memory's id, from the path: now superseded, still readable"),
  valid_until: localTime("When the corrected version stopped holding (the correction's time)")
}, { description: "A correction: the new version and the one it closed." }) {}

export class UserDeleteResult extends Schema.Class<UserDeleteResult>("UserDeleteResult")({
  user_id: UserIdEcho,
  deleted: Schema.Boolean.annotations({ description: "Whether the user had any data; false for a user never written to (nothing was done)." }),
  purged: Schema.Boolean.annotations({ description: "Whether the user's data was erased (purge=true) rather than archived." }),
  archived: Schema.Int.annotations({ description: "Memories archived by this request (those that were current); 0 with purge." })
}, { description: "What a whole-user delete did." }) {}

export class MemoriesApi extends HttpApiGroup.make("memories")
  .annotate(
    OpenApi.Description,
    "Write and manage a user's memories: ingest conversations (one or a batch), list and read memories, correct one by superseding it, archive or erase one or all."
  )
  .add(
    HttpApiEndpoint.post("add", "/v1/memories")
      .setPayload(AddMemoriesRequest)
      .addSuccess(AddMemoriesResult)
      .addSuccess(JobAccepted, { status: 202 })
      .addError(InvalidScopeWire)
      .addError(ConfigInvalidWire)
      .addError(IngestFailedWire)
      .addError(ProviderFailureWire)
      .addError(StoreUnavailableWire)
      .annotate(OpenApi.Summary, "Ingest a conversation: a job to poll (202), or the counts with async_mode false")
      .annotate(
        OpenApi.Description,
        "Ingest a conversation. async_mode (default true) answers 202 with a job to poll; false answers 200 with counts. infer=true (default) extracts facts with the configured LLM and reconciles them with current memories (add, supersede, merge); infer=false stores the turns verbatim and needs no LLM."
      )
  )
  .add(
    HttpApiEndpoint.post("addBatch", "/v1/memories/batch")
      .setPayload(BatchAddRequest)
      .addSuccess(BatchAddResult)
      .addSuccess(JobAccepted, { status: 202 })
      .addError(InvalidScopeWire)
      .addError(ConfigInvalidWire)
      .addError(StoreUnavailableWire)
      .annotate(OpenApi.Summary, "Ingest 1..500 sessions of one user, each an item of its own in the report")
      .annotate(
        OpenApi.Description,
        "Ingest 1..500 sessions of one user. Each session is attempted on its own: a session that fails validation or extraction is a failed item (error \"<code>: <message>\"), never the whole batch. async_mode (default true) answers 202 with an ingest_batch job whose result is the per-item report."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/v1/memories")
      .setUrlParams(ListMemoriesQuery)
      .addSuccess(MemoryList)
      .addError(InvalidScopeWire)
      .addError(StoreUnavailableWire)
      .annotate(OpenApi.Summary, "Current memories of a user, oldest first, with paging; scope keys narrow")
      .annotate(
        OpenApi.Description,
        "A user's current memories, oldest first: the active ones, less the state, preference and profile memories whose valid_until has passed. Scope keys narrow (a memory stamped with another value is left out; an unstamped one stays). An unknown user has no memories, and reading creates no store."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/v1/memories/:memory_id")
      .setPath(MemoryIdPath)
      .setUrlParams(Schema.Struct(ScopeQuery))
      .addSuccess(Memory)
      .addError(NotFoundWire)
      .addError(InvalidScopeWire)
      .addError(StoreUnavailableWire)
      .annotate(OpenApi.Summary, "One memory; superseded versions stay readable, archived ones are 404")
      .annotate(
        OpenApi.Description,
        "One memory by its id. A superseded version stays readable (status superseded, with valid_until); an archived, unknown or out-of-scope id is 404 not_found."
      )
  )
  .add(
    HttpApiEndpoint.patch("update", "/v1/memories/:memory_id")
      .setPath(MemoryIdPath)
      .setUrlParams(Schema.Struct(ScopeKeysQuery))
      .setPayload(UpdateMemoryRequest)
      .addSuccess(UpdateResult)
      .addError(NotFoundWire)
      .addError(ConflictWire)
      .addError(UnprocessableWire)
      .addError(InvalidScopeWire)
      .addError(IngestFailedWire)
      .addError(ConfigInvalidWire)
      .addError(ProviderFailureWire)
      .addError(StoreUnavailableWire)
      .annotate(OpenApi.Summary, "Correct a memory: a new version supersedes it, nothing is rewritten in place")
      .annotate(
        OpenApi.Description,
        "Correct a memory by superseding it: with an LLM configured the content goes through extraction (the newest fact extracted is the new version, 422 when none is), otherwise it is stored verbatim; a new version is written and the old one closed with valid_until, linked by SUPERSEDES; nothing is rewritten in place. An archived target is 404, a superseded one 409. Scope keys narrow, given in the body or in the query (or both: the memory must be within each); a memory stamped outside them is 404."
      )
  )
  .add(
    HttpApiEndpoint.del("delete", "/v1/memories/:memory_id")
      .setPath(MemoryIdPath)
      .setUrlParams(DeleteQuery)
      .addSuccess(DeleteResult)
      .addError(NotFoundWire)
      .addError(ForbiddenWire)
      .addError(InvalidScopeWire)
      .addError(StoreUnavailableWire)
      .annotate(OpenApi.Summary, "Archive a memory, or erase it with purge=true")
      .annotate(
        OpenApi.Description,
        "Archive a memory (idempotent; it leaves list, get, search and context, the record stays). purge=true erases it with its roles, edges and index rows, only when SERVICE_ALLOW_PURGE is on (else 403). An unknown id is 200 with deleted false. Scope keys narrow: with any of them set, a memory stamped outside the scope, or none by that id, is 404 and nothing changes."
      )
  )
  .add(
    HttpApiEndpoint.del("deleteUser", "/v1/memories")
      .setUrlParams(DeleteQuery)
      .addSuccess(UserDeleteResult)
      .addError(ForbiddenWire)
      .addError(NotImplementedWire)
      .addError(InvalidScopeWire)
      .addError(StoreUnavailableWire)
      .annotate(OpenApi.Summary, "Archive all of a user's memories, or erase the user's data with purge=true")
      .annotate(
        OpenApi.Description,
        "All of a user's memories: archived by default (one audit event); purge=true erases the user's store directory, only when SERVICE_ALLOW_PURGE is on. Jobs, keys and the request log stay in the control plane. Scope keys are refused (501): this acts on the whole user."
      )
  )
  .middleware(ScopeKeysInQuery)
  .middleware(Authentication) {}
