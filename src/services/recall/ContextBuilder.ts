import { Effect } from "effect"
import { ContextResponse } from "../../api/RetrievalApi.js"
import { renderWithinBudget } from "../../retrieval/contextCards.js"
import { withTokenCounter } from "../../retrieval/tokenizer.js"
import type { ScopeParams } from "../memories/memoryRecords.js"
import { Retrieval } from "./Retrieval.js"
import { span } from "../../util/span.js"

/** Cards worth retrieving per token of budget: enough that the budget, not retrieval, is the limit. */
const TOKENS_PER_CARD = 20
const MAX_CARDS = 100

/**
 * The prompt-ready block: the same retrieval as search, rendered one cited card per line within
 * the token budget. Pure read; nothing here can call an LLM.
 */
export class ContextBuilder extends Effect.Service<ContextBuilder>()("Memory/ContextBuilder", {
  effect: Effect.gen(function*() {
    const retrieval = yield* Retrieval
    const build = (request: ScopeParams & { readonly query: string; readonly token_budget: number }) =>
      Effect.gen(function*() {
        const topK = Math.min(MAX_CARDS, Math.ceil(request.token_budget / TOKENS_PER_CARD))
        const { degraded, items } = yield* retrieval.search({ ...request, top_k: topK })
        // A tokenizer that cannot load is a broken installation: a fault, not an answer.
        const rendered = yield* Effect.orDie(withTokenCounter((countTokens) => renderWithinBudget(items, request.token_budget, countTokens)))
        // Typed values: no second validation of every card here.
        return new ContextResponse({
          text: rendered.text,
          citations: rendered.cards.map((card) => card.evidence_id as string),
          evidence: rendered.cards,
          degraded
        }, true)
      }).pipe(span("ContextBuilder.build"))
    return { build } as const
  })
}) {}
