/** Text reduced to what makes two items the same statement: case, spacing and punctuation aside. */
export const normalizeText = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim()

/** Names as stored for entities: lower case, accents and punctuation removed. */
export const normalizeName = (name: string) => name.normalize("NFKD").replace(/\p{M}+/gu, "").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim()
