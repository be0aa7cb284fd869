/**
 * A sentence vector from an encoder's token vectors: their mean over the tokens the attention
 * mask keeps (padding left out), scaled to unit length.
 */
export const meanPool = (hidden: Float32Array, mask: ReadonlyArray<number>, row: number, sequence: number, width: number): Float32Array => {
  const out = new Float32Array(width)
  let kept = 0
  for (let t = 0; t < sequence; t++) {
    if (mask[t] === 0) continue
    kept++
    const base = (row * sequence + t) * width
    for (let d = 0; d < width; d++) out[d] = out[d]! + hidden[base + d]!
  }
  return kept === 0 ? out : out.map((sum) => sum / kept)
}

/** The vector scaled to length 1; a zero vector stays zero. */
export const normalizeL2 = (vector: Float32Array): Float32Array => {
  let sum = 0
  for (const value of vector) sum += value * value
  const norm = Math.sqrt(sum)
  return norm === 0 ? vector : vector.map((value) => value / norm)
}
