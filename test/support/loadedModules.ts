import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"

const ROOT = NodePath.resolve(import.meta.dirname, "../..")

interface Metafile {
  readonly outputs: Record<string, { readonly inputs: Record<string, unknown> }>
}

/** What V8 writes for a process run with NODE_V8_COVERAGE, at its exit: each script and the calls of each of its functions. */
interface Coverage {
  readonly result: ReadonlyArray<{
    readonly url: string
    readonly functions: ReadonlyArray<{ readonly functionName: string; readonly ranges: ReadonlyArray<{ readonly count: number }> }>
  }>
}

/**
 * esbuild wraps each module a bundle evaluates on first use in a function named after the module's
 * path (`__esm({"src/http/docsPages.ts"() {…}})`, `__commonJS({"node_modules/pg/lib/index.js"(…) {…}})`);
 * every other module of the bundle is evaluated as the bundle starts.
 */
const WRAPPED = /__(?:esm|commonJS)\(\{"([^"]+)"\(/g

/** The package a module comes from (`pg`, `@effect/sql-pg`), or "src" for the service's own sources. */
const packageOf = (input: string) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? "src"

/** The modules a process evaluated in one script it ran: a bundle of the build, or a file loaded from node_modules. */
const evaluatedIn = (metafile: Metafile, script: Coverage["result"][number]): ReadonlyArray<string> => {
  if (!script.url.startsWith("file:")) return []
  const file = NodePath.relative(ROOT, fileURLToPath(script.url))
  const bundled = metafile.outputs[file]
  if (bundled === undefined) return [file]
  const wrapped = new Set([...NodeFs.readFileSync(NodePath.join(ROOT, file), "utf8").matchAll(WRAPPED)].map((match) => match[1]))
  const called = new Set(script.functions.filter((fn) => wrapped.has(fn.functionName) && (fn.ranges[0]?.count ?? 0) > 0).map((fn) => fn.functionName))
  return Object.keys(bundled.inputs).filter((input) => !wrapped.has(input) || called.has(input))
}

/**
 * A process's environment under which V8 counts the calls of every function, and what those counts
 * say once the process has exited: which modules of the build (and files of node_modules) it
 * evaluated. The counts are written at exit, so a process is asked after it ends.
 */
export const loadRecorder = () => {
  const folder = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "memory-loaded-"))
  const metafile = JSON.parse(NodeFs.readFileSync(NodePath.join(ROOT, "dist/bundle-meta.json"), "utf8")) as Metafile
  const evaluated = () => {
    const reports = NodeFs.readdirSync(folder).filter((name) => name.endsWith(".json"))
    if (reports.length === 0) throw new Error(`no coverage was written to ${folder}: ask after the process has exited`)
    return reports.flatMap((name) => (JSON.parse(NodeFs.readFileSync(NodePath.join(folder, name), "utf8")) as Coverage).result.flatMap((script) => evaluatedIn(metafile, script)))
  }
  return {
    env: { NODE_V8_COVERAGE: folder },
    /** The packages of the modules evaluated ("src" for the service's own). */
    packages: (): ReadonlySet<string> => new Set(evaluated().map(packageOf)),
    /** The sources and package files evaluated, as paths under the root. */
    inputs: (): ReadonlySet<string> => new Set(evaluated())
  }
}
