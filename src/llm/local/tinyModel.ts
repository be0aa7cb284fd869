import { seededRandom } from "../../util/seededRandom.js"
import { type Graph, type GraphNode, FLOAT, type Initializer, INT64, modelBytes } from "./onnxGraph.js"

/**
 * A BERT-shaped encoder with random weights and a small WordPiece vocabulary, in the layout of a
 * sentence-transformers ONNX export (model.onnx, tokenizer.json, config.json). Its vectors mean
 * nothing; it exercises the whole local embedding path, for tests and for smoke-testing an install.
 */
export interface TinyModelShape {
  readonly hidden: number
  readonly layers: number
  readonly maxPositions: number
  readonly seed: number
}

export const TINY_MODEL: TinyModelShape = { hidden: 32, layers: 2, maxPositions: 128, seed: 7 }

const SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
const WORDS = (
  "the a an and or but of to in on at for with from by about as is was are were be been have has had do did " +
  "i you he she it we they me my your his her our their this that what when where who why how not no yes " +
  "go went going come came see saw like love want need know think make made take took get got give gave " +
  "day week month year today yesterday tomorrow morning night time home work school house car dog cat " +
  "friend family mother father sister brother doctor book movie music game food dinner lunch coffee tea " +
  "park city trip travel beach mountain garden red blue green new old good bad big small last next first " +
  "play read walk run cook eat drink buy sell live move meet call visit hello world birthday party job"
).split(" ")
const SUFFIXES = ["##s", "##es", "##ed", "##ing", "##ly", "##er", "##est", "##ion", "##al", "##y"]
const PUNCTUATION = Array.from("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
const CHARACTERS = Array.from("abcdefghijklmnopqrstuvwxyz0123456789")

export const tinyVocabulary = (): ReadonlyArray<string> => [
  ...new Set([...SPECIAL, ...PUNCTUATION, ...CHARACTERS, ...CHARACTERS.map((c) => `##${c}`), ...WORDS, ...SUFFIXES])
]

const tinyGraph = (shape: TinyModelShape, vocabSize: number): Graph => {
  const next = seededRandom(shape.seed)
  const h = shape.hidden
  const ffn = h * 2
  const initializers: Array<Initializer> = []
  const weights = (name: string, dims: ReadonlyArray<number>, scale: number) => {
    const data = new Float32Array(dims.reduce((a, b) => a * b, 1))
    for (let i = 0; i < data.length; i++) data[i] = (next() * 2 - 1) * scale
    initializers.push({ name, dims, data })
    return name
  }
  const filled = (name: string, dims: ReadonlyArray<number>, value: number) => {
    initializers.push({ name, dims, data: new Float32Array(dims.reduce((a, b) => a * b, 1)).fill(value) })
    return name
  }
  const int64 = (name: string, dims: ReadonlyArray<number>, values: ReadonlyArray<number>) => {
    initializers.push({ name, dims, data: BigInt64Array.from(values.map(BigInt)) })
    return name
  }
  const nodes: Array<GraphNode> = []
  const op = (name: string, opType: string, inputs: ReadonlyArray<string>, attributes?: GraphNode["attributes"]) => {
    nodes.push({ op: opType, inputs, output: name, ...(attributes === undefined ? {} : { attributes }) })
    return name
  }
  const layerNorm = (name: string, input: string) =>
    op(name, "LayerNormalization", [input, filled(`${name}.gamma`, [h], 1), filled(`${name}.beta`, [h], 0)], [
      { name: "axis", int: -1 },
      { name: "epsilon", float: 1e-12 }
    ])

  const zero = int64("zero", [], [0])
  const one = int64("one", [], [1])
  const words = op("word_embeddings", "Gather", [weights("embeddings.word", [vocabSize, h], 1), "input_ids"])
  const types = op("type_embeddings", "Gather", [weights("embeddings.type", [2, h], 1), "token_type_ids"])
  const length = op("sequence_length", "Gather", [op("input_shape", "Shape", ["input_ids"]), one], [{ name: "axis", int: 0 }])
  const positions = op("position_embeddings", "Gather", [weights("embeddings.position", [shape.maxPositions, h], 1), op("positions", "Range", [zero, length, one])])
  let hiddenState = layerNorm("embeddings.norm", op("embeddings.sum", "Add", [op("embeddings.partial", "Add", [words, types]), positions]))

  // Padding gets a large negative score before the softmax, so that it draws no attention.
  const mask = op("mask.float", "Cast", ["attention_mask"], [{ name: "to", int: FLOAT }])
  const maskRow = op("mask.row", "Unsqueeze", [mask, int64("mask.axes", [1], [1])])
  const maskBias = op("mask.bias", "Mul", [op("mask.inverse", "Sub", [filled("one.float", [], 1), maskRow]), filled("mask.penalty", [], -10000)])

  for (let layer = 0; layer < shape.layers; layer++) {
    const p = `layer${layer}`
    const project = (part: string, input: string, dims: [number, number]) =>
      op(`${p}.${part}`, "MatMul", [input, weights(`${p}.${part}.weight`, dims, 1 / Math.sqrt(dims[0]))])
    const query = project("query", hiddenState, [h, h])
    const key = project("key", hiddenState, [h, h])
    const value = project("value", hiddenState, [h, h])
    const scores = op(`${p}.scores`, "MatMul", [query, op(`${p}.key_t`, "Transpose", [key], [{ name: "perm", ints: [0, 2, 1] }])])
    const scaled = op(`${p}.scaled`, "Mul", [scores, filled(`${p}.scale`, [], 1 / Math.sqrt(h))])
    const attention = op(`${p}.attention`, "Softmax", [op(`${p}.masked`, "Add", [scaled, maskBias])], [{ name: "axis", int: -1 }])
    const context = project("output", op(`${p}.context`, "MatMul", [attention, value]), [h, h])
    const attended = layerNorm(`${p}.attention_norm`, op(`${p}.residual`, "Add", [hiddenState, context]))
    const expanded = op(`${p}.activation`, "Relu", [project("intermediate", attended, [h, ffn])])
    hiddenState = layerNorm(`${p}.output_norm`, op(`${p}.ffn_residual`, "Add", [attended, project("ffn_output", expanded, [ffn, h])]))
  }
  op("last_hidden_state", "Identity", [hiddenState])

  const tokens = (name: string) => ({ name, type: INT64, shape: ["batch", "sequence"] })
  return {
    name: "tiny-bert",
    nodes,
    initializers,
    inputs: [tokens("input_ids"), tokens("attention_mask"), tokens("token_type_ids")],
    outputs: [{ name: "last_hidden_state", type: FLOAT, shape: ["batch", "sequence", h] }]
  }
}

const tokenizerJson = (vocabulary: ReadonlyArray<string>, maxLength: number) => ({
  version: "1.0",
  truncation: { direction: "Right", max_length: maxLength, strategy: "LongestFirst", stride: 0 },
  padding: null,
  added_tokens: SPECIAL.map((content, id) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
  normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
  pre_tokenizer: { type: "BertPreTokenizer" },
  post_processor: {
    type: "TemplateProcessing",
    single: [{ SpecialToken: { id: "[CLS]", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }, { SpecialToken: { id: "[SEP]", type_id: 0 } }],
    special_tokens: {
      "[CLS]": { id: "[CLS]", ids: [vocabulary.indexOf("[CLS]")], tokens: ["[CLS]"] },
      "[SEP]": { id: "[SEP]", ids: [vocabulary.indexOf("[SEP]")], tokens: ["[SEP]"] }
    }
  },
  decoder: { type: "WordPiece", prefix: "##", cleanup: true },
  model: {
    type: "WordPiece",
    unk_token: "[UNK]",
    continuing_subword_prefix: "##",
    max_input_chars_per_word: 100,
    vocab: Object.fromEntries(vocabulary.map((token, id) => [token, id]))
  }
})

/** The files of the tiny model, by name. */
export const tinyModelFiles = (shape: TinyModelShape = TINY_MODEL): Record<string, Uint8Array> => {
  const vocabulary = tinyVocabulary()
  const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value, null, 1))
  return {
    "model.onnx": modelBytes(tinyGraph(shape, vocabulary.length)),
    "tokenizer.json": json(tokenizerJson(vocabulary, shape.maxPositions)),
    "config.json": json({
      model_type: "bert",
      architectures: ["BertModel"],
      hidden_size: shape.hidden,
      num_hidden_layers: shape.layers,
      num_attention_heads: 1,
      intermediate_size: shape.hidden * 2,
      max_position_embeddings: shape.maxPositions,
      type_vocab_size: 2,
      vocab_size: vocabulary.length
    })
  }
}
