import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { MemoryApi } from "../../api/Api.js"
import { SearchHit, SearchResponse } from "../../api/RetrievalApi.js"
import type { EvidenceItem } from "../../retrieval/evidence.js"
import { ContextBuilder } from "../../services/recall/ContextBuilder.js"
import { Retrieval } from "../../services/recall/Retrieval.js"
import { sentAsIs } from "./sentAsIs.js"

// Built from typed values, without a validation that would walk every hit's metadata again.
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
          sentAsIs(new SearchResponse({ query: payload.query, hits: items.map(toHit), degraded }, true))))
      .handle("contextGet", ({ urlParams }) => Effect.map(context.build(urlParams), sentAsIs))
      .handle("context", ({ payload }) => Effect.map(context.build(payload), sentAsIs))
  }))
