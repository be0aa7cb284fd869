/** A vector's float32 values as little-endian bytes, as SQLite keeps them. */
export const float32Bytes = (vector: Float32Array) => new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength)

/** A vector from little-endian float32 bytes, copied so that any alignment of the source works. */
export const fromFloat32Bytes = (bytes: Uint8Array) => new Float32Array(Uint8Array.from(bytes).buffer)

/** Whether two vectors hold the same float32 values bit for bit. */
export const sameBits = (a: Float32Array | null, b: Float32Array | null) =>
  a === null || b === null ? a === b : Buffer.from(float32Bytes(a)).equals(float32Bytes(b))
