import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { MemoryApi } from "../../api/Api.js"
import { SearchHit, SearchResponse } from "../../api/RetrievalApi.js"
import type { EvidenceItem } from "../../retrieval/evidence.js"
import { ContextBuilder } from "../../services/recall/ContextBuilder.js"
import { Retrieval } from "../../services/recall/Retrieval.js"

// Built from typed values and checked again as they are encoded: constructed without a second
// validation, which walked every hit's metadata (most of a search's encoding work).
const toHit = (item: EvidenceItem) =>
  new SearchHit({
    id: item.fact_id ?? item.evidence_id,
    content: item.support_text,
    score: item.rank.score,
    session_id: item.source_session_id,
    occurred_at: item.occurred_start ?? item.session_time,
    metadata: item
  }, true)

export const RetrievalLive = HttpApiBuilder.group(MemoryApi, "retrieval", (handlers) =>
  Effect.gen(function*() {
    const retrieval = yield* Retrieval
    const context = yield* ContextBuilder
    return handlers
      .handle("search", ({ payload }) =>
        Effect.map(retrieval.search(payload), ({ degraded, items }) =>
          new SearchResponse({ query: payload.query, hits: items.map(toHit), degraded }, true)))
      .handle("contextGet", ({ urlParams }) => context.build(urlParams))
      .handle("context", ({ payload }) => context.build(payload))
  }))
