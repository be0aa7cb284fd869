/**
 * A small export, as GET /v1/export wrote it for a user who sent one conversation with
 * infer false: the example body of POST /v1/import in the OpenAPI document.
 */
const RECORDS: ReadonlyArray<Record<string, unknown>> = [
  { type: "header", format: "memory-service.user-export", version: 1, user_id: "alice", schema_version: 7, exported_at: "2026-11-26T22:43:41.689000+00:00", vectors: null },
  { type: "session", session_id: "trip", session_time: "2024-03-05T18:30", created_at: "2026-11-26T22:43:41.657000+00:00" },
  { type: "turn", seq: 1, turn_id: "trip_turn_1", session_id: "trip", position: 1, role: "user", content: "I moved to Lisbon in March.", agent_id: null, run_id: null, project_id: null, created_at: "2026-11-26T22:43:41.657000+00:00" },
  { type: "turn", seq: 2, turn_id: "trip_turn_2", session_id: "trip", position: 2, role: "assistant", content: "How are you finding Lisbon so far?", agent_id: null, run_id: null, project_id: null, created_at: "2026-11-26T22:43:41.657000+00:00" },
  { type: "span", span_id: "span_trip_1", turn_id: "trip_turn_1", start_offset: 0, end_offset: 27 },
  { type: "span", span_id: "span_trip_2", turn_id: "trip_turn_2", start_offset: 0, end_offset: 34 },
  { type: "event", seq: 1, event_id: "trace_84e7b2aa-d9f0-42a5-a632-e655efc7328b", ts: "2026-11-26T22:43:41.657000+00:00", event_type: "memory_add", memory_id: null, session_id: "trip", reason: "2 turns stored verbatim (infer=false)", details: { action: "store_turns", infer: false, turns_written: 2, facts_extracted: 0, job_id: null, actor: "bootstrap", request_id: "381181a638e544a0" }, agent_id: null, run_id: null, project_id: null },
  { type: "end", records: 6 }
]

export const EXPORT_EXAMPLE = RECORDS.map((record) => `${JSON.stringify(record)}\n`).join("")
