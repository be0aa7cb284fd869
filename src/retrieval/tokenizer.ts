import { Effect } from "effect"
import { textFingerprint } from "../domain/text.js"
import { RecentCache } from "../util/recentCache.js"
import { lazyModule } from "../util/lazyModule.js"

/** The tokenizer that prices context blocks: ~35 MiB once loaded, so loaded for the first block. */
const tokenizer = lazyModule("gpt-tokenizer", () => import("gpt-tokenizer"))

/** A count of a text's tokens. */
export type TokenCounter = (text: string) => number

/**
 * Stored text may spell a special token (`<|endoftext|>`): to a reader it is text, and counted
 * as such (by default the tokenizer throws on it).
 */
const AS_PLAIN_TEXT = { disallowedSpecial: new Set<string>() }

/**
 * The counts of recently counted texts, by the texts' fingerprints: the same memories' lines come
 * back block after block, and counting one is most of what rendering a block costs. A fingerprint
 * holds none of its text's words, so a purged memory's line leaves nothing readable here.
 */
const recentCounts = new RecentCache<number, number>(20_000)

/**
 * Runs `use` with a counter of tokens, then empties the tokenizer's cache of word pieces. Its
 * keys are slices of the texts counted, and a slice keeps its whole text alive: kept from one
 * request to the next, the cache would hold context lines (memories' words) in memory after their
 * memories are purged, a whole line for each of its up to 100,000 pieces.
 */
export const withTokenCounter = <A>(use: (count: TokenCounter) => A) =>
  Effect.map(tokenizer, ({ clearMergeCache, countTokens }) => {
    const count = (text: string) => {
      const key = textFingerprint(text)
      const known = recentCounts.get(key)
      if (known !== undefined) return known
      const counted = countTokens(text, AS_PLAIN_TEXT)
      recentCounts.set(key, counted)
      return counted
    }
    try {
      return use(count)
    } finally {
      clearMergeCache()
    }
  })
