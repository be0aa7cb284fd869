import { Effect } from "effect"
import type { countTokens } from "gpt-tokenizer"
import { lazyModule } from "../util/lazyModule.js"

/** The tokenizer that prices context blocks: ~100 MB once loaded, so loaded for the first block. */
const tokenizer = lazyModule("gpt-tokenizer", () => import("gpt-tokenizer"))

/** The tokenizer's count of a text's tokens. */
export type TokenCounter = typeof countTokens

/**
 * Runs `use` with the tokenizer's count, then empties the tokenizer's cache of word pieces. Its
 * keys are slices of the texts counted, and a slice keeps its whole text alive: kept from one
 * request to the next, the cache would hold context lines (memories' words) in memory after their
 * memories are purged, a whole line for each of its up to 100,000 pieces.
 */
export const withTokenCounter = <A>(use: (count: TokenCounter) => A) =>
  Effect.map(tokenizer, ({ clearMergeCache, countTokens }) => {
    try {
      return use(countTokens)
    } finally {
      clearMergeCache()
    }
  })
