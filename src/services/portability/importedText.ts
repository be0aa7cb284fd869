import { MOST_SCOPE_KEY_UNITS } from "../../api/fields.js"
import { MOST_SESSION_ID_UNITS } from "../../api/MemoriesApi.js"
import { MAX_CONTENT_BYTES, utf8Length } from "../../api/text.js"
import { unstorableReason } from "../../domain/storableText.js"

/** Every other key: 768 bytes of UTF-8 at most. */
const MOST_KEY_UNITS = 256

/** Room beside the session id for what turn and span ids add to it (src/domain/ids.ts). */
const SESSION_SUFFIX_UNITS = 32

/**
 * The most UTF-16 units an import may give the columns PostgreSQL keeps in B-tree indexes, whose
 * entries cannot pass 2704 bytes: a session id as the API bounds it, the turn and span ids made
 * from one, the scope keys as the API bounds them, and MOST_KEY_UNITS for every other key, so
 * that the widest index entry (a fact's entity role: user, fact, entity and role) stays under the
 * limit. The ids the service makes are far shorter.
 */
const MOST_UNITS: Readonly<Record<string, number>> = {
  session_id: MOST_SESSION_ID_UNITS,
  turn_id: MOST_SESSION_ID_UNITS + SESSION_SUFFIX_UNITS,
  span_id: MOST_SESSION_ID_UNITS + SESSION_SUFFIX_UNITS,
  agent_id: MOST_SCOPE_KEY_UNITS,
  run_id: MOST_SCOPE_KEY_UNITS,
  project_id: MOST_SCOPE_KEY_UNITS,
  fact_id: MOST_KEY_UNITS,
  superseded_by: MOST_KEY_UNITS,
  src_fact_id: MOST_KEY_UNITS,
  dst_id: MOST_KEY_UNITS,
  memory_id: MOST_KEY_UNITS,
  entity_id: MOST_KEY_UNITS,
  normalized_name: MOST_KEY_UNITS,
  role: MOST_KEY_UNITS,
  edge_id: MOST_KEY_UNITS,
  event_id: MOST_KEY_UNITS,
  status: MOST_KEY_UNITS,
  occurred_at: MOST_KEY_UNITS
}

/**
 * Why a record's columns are refused, if they are: an import's text keeps the rule of every text a
 * client sends (docs/text.md), so that what one backend loads the other loads too, as it is.
 */
export const refusedText = (columns: Readonly<Record<string, unknown>>): string | undefined => {
  for (const [column, value] of Object.entries(columns)) {
    if (typeof value !== "string") continue
    const reason = unstorableReason(value)
    if (reason !== undefined) {
      return `${column} holds ${reason === "nul" ? "a NUL character (U+0000)" : "a lone UTF-16 surrogate"}, which no store keeps as it is`
    }
    const most = MOST_UNITS[column]
    if (most !== undefined && value.length > most) return `${column} has ${value.length} characters, more than the ${most} an import may give it`
    if (column === "content" && utf8Length(value) > MAX_CONTENT_BYTES) {
      return `content has more than ${MAX_CONTENT_BYTES} bytes of UTF-8, the most a turn or a memory may hold`
    }
  }
  return undefined
}
