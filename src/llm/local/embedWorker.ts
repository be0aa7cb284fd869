import { Either } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { parentPort, workerData } from "node:worker_threads"
import type * as Ort from "onnxruntime-node"
import { maxSequenceLength } from "./modelFiles.js"
import { meanPool, normalizeL2 } from "./pooling.js"
import { type WordPiece, wordPieceFrom } from "./wordpiece.js"
import type { WorkerReply, WorkerRequest, WorkerSetup } from "./workerProtocol.js"

/**
 * One inference thread of the local embedder: loads the model once, then turns batches of texts
 * into unit vectors (tokenize, run the encoder, mean-pool over the attention mask, normalize).
 * The ONNX runtime is loaded here only, so that a process without the local provider never loads it.
 */
const port = parentPort
const setupOf = (data: unknown): WorkerSetup => {
  const directory: unknown = typeof data === "object" && data !== null && "directory" in data ? data.directory : undefined
  if (typeof directory !== "string") throw new Error("the embedding worker was started without its model directory")
  return { directory }
}
const setup = setupOf(workerData)
const reply = (message: WorkerReply) => port?.postMessage(message)
const messageOf = (error: unknown) => error instanceof Error ? error.message : String(error)

const readJson = (file: string): Record<string, unknown> => {
  const value: unknown = JSON.parse(NodeFs.readFileSync(file, "utf8"))
  if (typeof value !== "object" || value === null) throw new Error(`${NodePath.basename(file)} is not a JSON object`)
  return Object.fromEntries(Object.entries(value))
}

interface Model {
  readonly ort: typeof Ort
  readonly session: Ort.InferenceSession
  readonly tokenizer: WordPiece
  readonly maxTokens: number
  readonly output: string
}

const load = async (): Promise<Model> => {
  const directory = setup.directory
  const tokenizer = wordPieceFrom(readJson(NodePath.join(directory, "tokenizer.json")))
  if (Either.isLeft(tokenizer)) throw new Error(tokenizer.left)
  const sentenceFile = NodePath.join(directory, "sentence_bert_config.json")
  const maxTokens = maxSequenceLength(
    readJson(NodePath.join(directory, "config.json")),
    NodeFs.existsSync(sentenceFile) ? readJson(sentenceFile) : undefined,
    tokenizer.right.truncation
  )
  const ort = await import("onnxruntime-node").catch((error: unknown) => {
    throw new Error(
      `the ONNX runtime is not installed (${messageOf(error)}): npm install onnxruntime-node@~1.30 beside the service, with ONNXRUNTIME_NODE_INSTALL=skip to skip its optional CUDA download`
    )
  })
  // One thread per worker: the pool's size is the parallelism.
  const session = await ort.InferenceSession.create(NodePath.join(directory, "model.onnx"), { intraOpNumThreads: 1, interOpNumThreads: 1 })
  const output = session.outputNames.includes("last_hidden_state") ? "last_hidden_state" : session.outputNames[0]
  if (output === undefined) throw new Error("model.onnx has no output")
  return { ort, session, tokenizer: tokenizer.right, maxTokens, output }
}

const embed = async (model: Model, texts: ReadonlyArray<string>): Promise<ReadonlyArray<Float32Array>> => {
  const encoded = texts.map((text) => model.tokenizer.encode(text, model.maxTokens).ids)
  const sequence = Math.max(...encoded.map((ids) => ids.length))
  const size = texts.length * sequence
  const ids = new BigInt64Array(size).fill(BigInt(model.tokenizer.padId))
  const mask = new BigInt64Array(size)
  const masks: Array<Array<number>> = []
  encoded.forEach((tokens, row) => {
    const rowMask = new Array<number>(sequence).fill(0)
    tokens.forEach((id, t) => {
      ids[row * sequence + t] = BigInt(id)
      mask[row * sequence + t] = 1n
      rowMask[t] = 1
    })
    masks.push(rowMask)
  })
  const dims = [texts.length, sequence]
  const feeds: Record<string, Ort.Tensor> = {}
  for (const name of model.session.inputNames) {
    if (name === "input_ids") feeds[name] = new model.ort.Tensor("int64", ids, dims)
    else if (name === "attention_mask") feeds[name] = new model.ort.Tensor("int64", mask, dims)
    else if (name === "token_type_ids") feeds[name] = new model.ort.Tensor("int64", new BigInt64Array(size), dims)
    else throw new Error(`model.onnx asks for an input this service does not give: ${name}`)
  }
  const outputs = await model.session.run(feeds)
  const hidden = outputs[model.output]
  const data = hidden?.data
  const width = hidden?.dims.length === 3 ? hidden.dims[2] : undefined
  if (!(data instanceof Float32Array) || width === undefined) {
    throw new Error(`model.onnx's output ${model.output} is not a float tensor of token vectors`)
  }
  return masks.map((rowMask, row) => normalizeL2(meanPool(data, rowMask, row, sequence, width)))
}

const start = async () => {
  const model = await load().catch((error: unknown) => {
    reply({ kind: "failed", message: messageOf(error) })
    return undefined
  })
  if (model === undefined) return
  const probe = await embed(model, ["probe"]).catch((error: unknown) => {
    reply({ kind: "failed", message: messageOf(error) })
    return undefined
  })
  if (probe === undefined) return
  port?.on("message", (request: WorkerRequest) => {
    embed(model, request.texts).then(
      (vectors) => reply({ kind: "vectors", id: request.id, vectors }),
      (error: unknown) => reply({ kind: "error", id: request.id, message: messageOf(error) })
    )
  })
  reply({ kind: "ready", dimensions: probe[0]!.length, maxTokens: model.maxTokens })
}

void start()
