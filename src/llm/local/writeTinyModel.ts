import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { TINY_MODEL, tinyModelFiles, type TinyModelShape } from "./tinyModel.js"

/** Writes the tiny model's files into `directory` (created if need be); returns their names. */
export const writeTinyModel = (directory: string, shape: TinyModelShape = TINY_MODEL): ReadonlyArray<string> => {
  NodeFs.mkdirSync(directory, { recursive: true })
  const files = tinyModelFiles(shape)
  for (const [name, bytes] of Object.entries(files)) NodeFs.writeFileSync(NodePath.join(directory, name), bytes)
  return Object.keys(files)
}
