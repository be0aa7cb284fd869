import { hammingKernel, PAGE_BYTES } from "./hammingKernel.js"

/**
 * Binary-quantized vectors held in memory: one bit per dimension (set when the value is
 * positive, sqlite-vec's `vec_quantize_binary` layout), padded to 64-bit words, scanned by the
 * Hamming kernel. A scan of 100k 512-d vectors takes about half a millisecond, where vec0's bit
 * scan reads its chunks through SQLite on every query (16 ms or more).
 *
 * The kernel's memory holds the vectors from offset 0, then the query, then the distances; the
 * scratch regions move when the vectors outgrow them, the vectors never do.
 */
export class BitIndex {
  private readonly vectorBytes: number
  private readonly kernel: ReturnType<typeof hammingKernel>
  private seqs: Float64Array
  private count = 0
  private highestSeq = 0

  constructor(readonly dimensions: number, capacity = 1024) {
    this.vectorBytes = Math.ceil(dimensions / 64) * 8
    this.seqs = new Float64Array(Math.max(1, capacity))
    this.kernel = hammingKernel(Math.ceil(this.bytesFor(this.seqs.length) / PAGE_BYTES))
  }

  get size() {
    return this.count
  }

  /** The highest seq held; 0 when empty. */
  get maxSeq() {
    return this.highestSeq
  }

  /** Adds a row's bits, as vec0 and `vec_quantize_binary` store them (dimensions / 8 bytes). */
  append(seq: number, bits: Uint8Array) {
    if (this.count === this.seqs.length) this.grow()
    const slot = new Uint8Array(this.kernel.memory.buffer, this.count * this.vectorBytes, this.vectorBytes)
    slot.fill(0)
    slot.set(bits.subarray(0, Math.min(bits.length, this.vectorBytes)))
    this.seqs[this.count] = seq
    this.count++
    if (seq > this.highestSeq) this.highestSeq = seq
  }

  /**
   * The seqs of the `wanted` rows nearest the query's bits by Hamming distance, nearest first;
   * rows at the same distance keep the order they were added in.
   */
  nearest(query: Uint32Array, wanted: number): Array<number> {
    const queryAt = this.seqs.length * this.vectorBytes
    const distancesAt = queryAt + this.vectorBytes
    const buffer = this.kernel.memory.buffer
    const queryBytes = new Uint8Array(buffer, queryAt, this.vectorBytes)
    queryBytes.fill(0)
    queryBytes.set(new Uint8Array(query.buffer, query.byteOffset, Math.min(query.byteLength, this.vectorBytes)))
    this.kernel.distances(0, this.count, this.vectorBytes / 8, queryAt, distancesAt)
    const distances = new Uint16Array(buffer, distancesAt, this.count)
    const histogram = new Uint32Array(this.dimensions + 1)
    for (let row = 0; row < this.count; row++) histogram[distances[row]!]!++
    // Counting sort: the rows within the smallest distances that hold `wanted` of them.
    const take = Math.min(wanted, this.count)
    const starts = new Uint32Array(this.dimensions + 1)
    let limit = 0
    for (let d = 0, total = 0; d <= this.dimensions && total < take; d++) {
      starts[d] = total
      total += histogram[d]!
      limit = d
    }
    const ordered = new Array<number>(take)
    const filled = new Uint32Array(limit + 1)
    for (let row = 0; row < this.count; row++) {
      const d = distances[row]!
      if (d > limit) continue
      const slot = starts[d]! + filled[d]!
      if (slot >= take) continue
      ordered[slot] = this.seqs[row]!
      filled[d]!++
    }
    return ordered
  }

  /** Memory for `capacity` vectors, the query and the distances. */
  private bytesFor(capacity: number) {
    return capacity * (this.vectorBytes + 2) + this.vectorBytes
  }

  private grow() {
    const seqs = new Float64Array(this.seqs.length * 2)
    seqs.set(this.seqs)
    const missing = this.bytesFor(seqs.length) - this.kernel.memory.buffer.byteLength
    if (missing > 0) this.kernel.memory.grow(Math.ceil(missing / PAGE_BYTES))
    this.seqs = seqs
  }
}

/** A query vector's bits in the index's layout. */
export const quantize = (vector: Float32Array): Uint32Array => {
  const words = new Uint32Array(Math.ceil(vector.length / 32))
  for (let i = 0; i < vector.length; i++) if (vector[i]! > 0) words[i >>> 5]! |= 1 << (i & 31)
  return words
}
