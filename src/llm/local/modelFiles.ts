import * as NodeFs from "node:fs"
import * as NodePath from "node:path"

/** The model the local provider runs when SERVICE_EMBED_MODEL names none. */
export const DEFAULT_LOCAL_MODEL = "sentence-transformers/all-MiniLM-L6-v2"

/** What a model directory holds: the exported encoder, its tokenizer and its configuration. */
export const MODEL_FILES = ["model.onnx", "tokenizer.json", "config.json"] as const

/** Where `models pull` puts hub models, under the data root. */
export const modelsDirectory = (dataRoot: string) => NodePath.join(dataRoot, "models")

/** A hub id (`owner/name`) as one directory name under the models directory. */
export const hubDirectory = (dataRoot: string, id: string) => NodePath.join(modelsDirectory(dataRoot), id.replaceAll("/", "--"))

/** A value naming a directory (absolute, or relative with ./ or ../), not a hub id. */
export const isDirectoryName = (model: string) => NodePath.isAbsolute(model) || model.startsWith("./") || model.startsWith("../") || model === "."

/** Where the files of SERVICE_EMBED_MODEL are: the directory it names, or the hub id's under the data root. */
export const modelDirectory = (dataRoot: string, model: string) => isDirectoryName(model) ? NodePath.resolve(model) : hubDirectory(dataRoot, model)

export const missingFiles = (directory: string): ReadonlyArray<string> =>
  MODEL_FILES.filter((file) => !NodeFs.existsSync(NodePath.join(directory, file)))

/** The command that brings a missing model, or what to do with a directory that lacks files. */
export const remedy = (model: string) =>
  isDirectoryName(model)
    ? `put ${MODEL_FILES.join(", ")} in ${NodePath.resolve(model)}`
    : `memory-service models pull ${model}`

/** Hub ids pulled under the data root, with every file present: the embedded default's candidates. */
export const pulledModels = (dataRoot: string): ReadonlyArray<string> => {
  const root = modelsDirectory(dataRoot)
  if (!NodeFs.existsSync(root)) return []
  return NodeFs.readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && missingFiles(NodePath.join(root, entry.name)).length === 0)
    .map((entry) => entry.name.replaceAll("--", "/"))
    .sort()
}

const positive = (value: unknown) => typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined

/**
 * The longest input the model takes, in tokens: sentence-transformers' max_seq_length when the
 * directory has its file, else the tokenizer's truncation, never past the model's positions.
 */
export const maxSequenceLength = (
  config: Record<string, unknown>,
  sentenceConfig: Record<string, unknown> | undefined,
  tokenizerTruncation: number | undefined
): number => {
  const positions = positive(config.max_position_embeddings) ?? 512
  return Math.min(positive(sentenceConfig?.max_seq_length) ?? tokenizerTruncation ?? positions, positions)
}
