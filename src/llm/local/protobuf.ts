/**
 * Just enough of the protocol-buffer wire format to write an ONNX model: varints, length-delimited
 * fields and fixed 32-bit floats.
 */
export type Field =
  | { readonly kind: "varint"; readonly field: number; readonly value: number | bigint }
  | { readonly kind: "bytes"; readonly field: number; readonly value: Uint8Array }
  | { readonly kind: "float"; readonly field: number; readonly value: number }

const varint = (input: number | bigint): Array<number> => {
  // Negative int64 values are written as their two's complement in ten bytes.
  let value = BigInt.asUintN(64, BigInt(input))
  const out: Array<number> = []
  while (value >= 0x80n) {
    out.push(Number(value & 0x7fn) | 0x80)
    value >>= 7n
  }
  out.push(Number(value))
  return out
}

const concat = (parts: ReadonlyArray<Uint8Array>) => {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0))
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

export const message = (fields: ReadonlyArray<Field>): Uint8Array =>
  concat(fields.map((field) => {
    switch (field.kind) {
      case "varint":
        return Uint8Array.from([...varint(field.field << 3), ...varint(field.value)])
      case "bytes":
        return concat([Uint8Array.from([...varint((field.field << 3) | 2), ...varint(field.value.length)]), field.value])
      case "float": {
        const bytes = new Uint8Array(4)
        new DataView(bytes.buffer).setFloat32(0, field.value, true)
        return concat([Uint8Array.from(varint((field.field << 3) | 5)), bytes])
      }
    }
  }))

export const int = (field: number, value: number | bigint): Field => ({ kind: "varint", field, value })
export const bytes = (field: number, value: Uint8Array): Field => ({ kind: "bytes", field, value })
export const text = (field: number, value: string): Field => ({ kind: "bytes", field, value: new TextEncoder().encode(value) })
export const float = (field: number, value: number): Field => ({ kind: "float", field, value })
