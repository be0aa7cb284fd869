import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const ROOT = NodePath.resolve(import.meta.dirname, "../..")

interface Metafile {
  readonly outputs: Record<string, { readonly inputs: Record<string, unknown> }>
}

// A module loader hook that notes every ES module a process loads, one URL a line.
const HOOKS = `import { appendFileSync } from "node:fs"
let log
export function initialize(data) { log = data.log }
export async function load(url, context, next) { appendFileSync(log, url + "\\n"); return next(url, context) }
`
const REGISTER = (hooks: string, log: string) =>
  `import { register } from "node:module"
register(${JSON.stringify(pathToFileURL(hooks).href)}, { data: { log: ${JSON.stringify(log)} } })
`

/** The package a bundle input comes from (`pg`, `@effect/sql-pg`), or "src" for the service's own sources. */
const packageOf = (input: string) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? "src"

/**
 * A process's environment that records which files of the build it loads, and what the bundle's
 * metafile says those files hold: the packages inside every bundle file it loaded so far.
 */
export const loadRecorder = () => {
  const folder = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "memory-loaded-"))
  const log = NodePath.join(folder, "loaded.txt")
  const hooks = NodePath.join(folder, "hooks.mjs")
  const register = NodePath.join(folder, "register.mjs")
  NodeFs.writeFileSync(hooks, HOOKS)
  NodeFs.writeFileSync(register, REGISTER(hooks, log))
  NodeFs.writeFileSync(log, "")
  const metafile = JSON.parse(NodeFs.readFileSync(NodePath.join(ROOT, "dist/bundle-meta.json"), "utf8")) as Metafile
  const loadedInputs = () =>
    NodeFs.readFileSync(log, "utf8").split("\n")
      .filter((url) => url.startsWith("file:"))
      .map((url) => NodePath.relative(ROOT, fileURLToPath(url)))
      .flatMap((file) => Object.keys(metafile.outputs[file]?.inputs ?? {}))
  return {
    env: { NODE_OPTIONS: `--import=${register}` },
    /** The packages inside the bundle files loaded so far (each bundle file by its place under the root). */
    packages: (): ReadonlySet<string> => new Set(loadedInputs().map(packageOf)),
    /** The sources and package files inside the bundle files loaded so far, as paths under the root. */
    inputs: (): ReadonlySet<string> => new Set(loadedInputs())
  }
}
