import { MAX_CONTENT_BYTES, utf8Length } from "../../api/text.js"
import { unstorableReason } from "../../domain/storableText.js"

/**
 * The most UTF-16 units an import may give the columns PostgreSQL keeps in B-tree indexes, whose
 * entries cannot pass 2704 bytes: a session id as the API bounds it, the turn and span ids made
 * from one, the scope keys as the API bounds them, and 256 (768 bytes of UTF-8) for every other
 * key, so that the widest index entry (a fact's entity role: user, fact, entity and role) stays
 * under the limit. The ids the service makes are far shorter.
 */
const MOST_UNITS: Readonly<Record<string, number>> = {
  session_id: 512,
  turn_id: 544,
  span_id: 544,
  agent_id: 128,
  run_id: 128,
  project_id: 128,
  fact_id: 256,
  superseded_by: 256,
  src_fact_id: 256,
  dst_id: 256,
  memory_id: 256,
  entity_id: 256,
  normalized_name: 256,
  role: 256,
  edge_id: 256,
  event_id: 256,
  status: 256,
  occurred_at: 256
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
