/**
 * Deterministic embeddings for the stub providers: each word (after a small synonym table, so
 * that "automobile" lands where "car" does) is hashed into the vector, which is then
 * L2-normalized. Close texts get close vectors, with no model.
 */
// A Map, not an object literal: a word such as "constructor" must not find Object.prototype's.
const SYNONYMS = new Map<string, string>([
  ["automobile", "car"],
  ["vehicle", "car"],
  ["physician", "doctor"],
  ["puppy", "dog"],
  ["hound", "dog"],
  ["film", "movie"],
  ["cinema", "movie"],
  ["residence", "home"],
  ["house", "home"]
])

const fnv1a = (text: string) => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return hash >>> 0
}

export const stubEmbedding = (text: string, dimensions: number): Array<number> => {
  const vector = new Array<number>(dimensions).fill(0)
  for (const raw of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const word = SYNONYMS.get(raw) ?? raw
    const hash = fnv1a(word)
    vector[hash % dimensions]! += (hash & 0x80000000) === 0 ? 1 : -1
  }
  const norm = Math.hypot(...vector) || 1
  return vector.map((value) => value / norm)
}
