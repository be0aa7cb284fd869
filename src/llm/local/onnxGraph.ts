import { bytes, type Field, float, int, message, text } from "./protobuf.js"

/** ONNX's element types used here. */
export const FLOAT = 1
export const INT64 = 7

export type Attribute =
  | { readonly name: string; readonly int: number }
  | { readonly name: string; readonly float: number }
  | { readonly name: string; readonly ints: ReadonlyArray<number> }

export interface GraphNode {
  readonly op: string
  readonly inputs: ReadonlyArray<string>
  readonly output: string
  readonly attributes?: ReadonlyArray<Attribute>
}

export interface Initializer {
  readonly name: string
  readonly dims: ReadonlyArray<number>
  readonly data: Float32Array | BigInt64Array
}

export interface GraphInput {
  readonly name: string
  readonly type: number
  /** A number is a fixed size, a string a named size the caller chooses. */
  readonly shape: ReadonlyArray<number | string>
}

export interface Graph {
  readonly name: string
  readonly nodes: ReadonlyArray<GraphNode>
  readonly initializers: ReadonlyArray<Initializer>
  readonly inputs: ReadonlyArray<GraphInput>
  readonly outputs: ReadonlyArray<GraphInput>
}

// Field numbers of onnx.proto.
const attribute = (value: Attribute): Uint8Array => {
  const fields: Array<Field> = [text(1, value.name)]
  if ("int" in value) fields.push(int(3, value.int), int(20, 2))
  else if ("float" in value) fields.push(float(2, value.float), int(20, 1))
  else fields.push(...value.ints.map((n) => int(8, n)), int(20, 7))
  return message(fields)
}

const node = (value: GraphNode, index: number) =>
  message([
    ...value.inputs.map((name) => text(1, name)),
    text(2, value.output),
    text(3, `${value.op}_${index}`),
    text(4, value.op),
    ...(value.attributes ?? []).map((a) => bytes(5, attribute(a)))
  ])

const tensor = (value: Initializer) =>
  message([
    ...value.dims.map((d) => int(1, d)),
    int(2, value.data instanceof Float32Array ? FLOAT : INT64),
    text(8, value.name),
    // ONNX's raw data is little-endian, as typed arrays are on the machines this runs on.
    bytes(9, new Uint8Array(value.data.buffer, value.data.byteOffset, value.data.byteLength))
  ])

const valueInfo = (value: GraphInput) => {
  const dims = value.shape.map((d) => bytes(1, message([typeof d === "number" ? int(1, d) : text(2, d)])))
  const tensorType = message([int(1, value.type), bytes(2, message(dims))])
  return message([text(1, value.name), bytes(2, message([bytes(1, tensorType)]))])
}

/** A model file: IR version 8, the default operator set at version 17. */
export const modelBytes = (graph: Graph): Uint8Array => {
  const graphBytes = message([
    ...graph.nodes.map((n, i) => bytes(1, node(n, i))),
    text(2, graph.name),
    ...graph.initializers.map((t) => bytes(5, tensor(t))),
    ...graph.inputs.map((v) => bytes(11, valueInfo(v))),
    ...graph.outputs.map((v) => bytes(12, valueInfo(v)))
  ])
  return message([
    int(1, 8),
    text(2, "memory-service"),
    bytes(7, graphBytes),
    bytes(8, message([text(1, ""), int(2, 17)]))
  ])
}
