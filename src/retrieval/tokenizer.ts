import { lazyModule } from "../util/lazyModule.js"

/** The tokenizer that prices context blocks: ~100 MB once loaded, so loaded for the first block. */
export const tokenizer = lazyModule("gpt-tokenizer", () => import("gpt-tokenizer"))
