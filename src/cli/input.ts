import { FileSystem } from "@effect/platform"
import { Effect } from "effect"
import { invalidInput } from "./errors.js"

const readStdin = Effect.tryPromise({
  try: async () => {
    const chunks: Array<Buffer> = []
    for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)))
    return Buffer.concat(chunks).toString("utf8")
  },
  catch: (error) => invalidInput(`cannot read stdin: ${String(error)}`)
})

/** A file's text, or stdin's for `-`. */
export const readText = (path: string) =>
  path === "-"
    ? readStdin
    : Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(path)).pipe(
      Effect.mapError((error) => invalidInput(`cannot read ${path}: ${error.message}`))
    )

export const parseJson = (text: string, origin: string) =>
  Effect.try({ try: (): unknown => JSON.parse(text), catch: (error) => invalidInput(`${origin} is not JSON: ${String(error)}`) })

/** A JSON array, or JSON lines (one value per non-empty line). */
export const parseJsonOrLines = (text: string, origin: string): Effect.Effect<ReadonlyArray<unknown>, ReturnType<typeof invalidInput>> => {
  if (text.trimStart().startsWith("[")) {
    return Effect.flatMap(parseJson(text, origin), (value) =>
      Array.isArray(value) ? Effect.succeed(value) : Effect.fail(invalidInput(`${origin}: expected a JSON array`)))
  }
  const lines = text.split("\n").map((line, index) => ({ line: line.trim(), number: index + 1 })).filter(({ line }) => line !== "")
  return Effect.forEach(lines, ({ line, number }) => parseJson(line, `${origin} line ${number}`))
}
