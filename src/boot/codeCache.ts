// Runs a CommonJS bundle of the service with V8's code cache. Node 20 caches no compiled code for
// its own module loaders, so every start would parse and compile the bundle again, and compile
// each function again on its first call. Compiled here, the bytecode of every function the
// process has run is kept beside the bundle (`<bundle>.cache`) and handed back to V8 on the next
// start. V8 checks a cache against its own version and flags but, of the source, only its length:
// the cache is kept behind the source's SHA-256, and one made from other source (a rebuild) is not
// handed to V8 at all. Either way the program is compiled afresh and the cache written again.
//
// This module loads no package: it runs before the bundle, in every process.
import { createHash } from "node:crypto"
import * as NodeFs from "node:fs"
import { createRequire } from "node:module"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import * as NodeV8 from "node:v8"
import * as NodeVm from "node:vm"

/** What became of the cache at this start. */
export type CodeCacheState = "accepted" | "rejected" | "absent"

/** The variables a CommonJS module sees, plus the bundle's own URL (what `import.meta.url` is built as). */
const WRAPPER_PARAMETERS = ["exports", "require", "module", "__filename", "__dirname", "__bundleUrl"]

/** After this long, a process that runs on (a server) writes the cache without waiting to exit. */
const WRITE_AFTER_MS = 2_000

const cachePath = (bundlePath: string) => `${bundlePath}.cache`

/** A cache file is the digest of the source it was made from, then V8's data. */
const DIGEST_BYTES = 32

const digestOf = (source: Buffer) => createHash("sha256").update(source).digest()

/** The file's bytes, or undefined when there is no such file (another process may remove it at any time). */
const readIfPresent = (path: string) => {
  try {
    return NodeFs.readFileSync(path)
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "ENOENT") return undefined
    throw error
  }
}

/** V8's data from the cache file, when that file was made from this very source. */
const cachedDataFor = (path: string, digest: Buffer) => {
  const file = readIfPresent(path)
  if (file === undefined) return { found: false, cachedData: undefined }
  const matches = file.length > DIGEST_BYTES && file.subarray(0, DIGEST_BYTES).equals(digest)
  return { found: true, cachedData: matches ? file.subarray(DIGEST_BYTES) : undefined }
}

/** A directory this process may write into: the cache is only kept where the build was made by this user. */
const writable = (directory: string) => {
  try {
    NodeFs.accessSync(directory, NodeFs.constants.W_OK)
    return true
  } catch {
    // accessSync's only way to answer "no".
    return false
  }
}

/** Writes the script's cache once, whole or not at all (a temporary file renamed over the old one). */
const cacheWriter = (script: NodeVm.Script, path: string, digest: Buffer) => {
  let written = false
  return () => {
    if (written) return
    written = true
    const temporary = `${path}.${process.pid}.tmp`
    try {
      NodeFs.writeFileSync(temporary, Buffer.concat([digest, script.createCachedData()]))
      NodeFs.renameSync(temporary, path)
    } catch (error) {
      NodeFs.rmSync(temporary, { force: true })
      process.emitWarning(`the code cache ${path} could not be written: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
}

/** The name of a flag as node's command line may spell it (`--a_b=1` is `--a-b`). */
const flagName = (flag: string) => flag.split("=")[0]!.replaceAll("_", "-")

/** Sets V8 flags, each unless node was started with that flag. */
const setV8Flags = (flags: ReadonlyArray<string>, execArgv: ReadonlyArray<string>) => {
  const given = new Set(execArgv.map(flagName))
  for (const flag of flags) if (!given.has(flagName(flag))) NodeV8.setFlagsFromString(flag)
}

/** How a launcher runs its bundle. */
export interface RunOptions {
  /**
   * V8 flags for a program's long run, set once its start is over, after the cache is written.
   * V8 keys its code cache to its flags: a cache written after they changed would not fit the next
   * start. Node's own command line wins over each.
   */
  readonly v8FlagsAfterStart?: ReadonlyArray<string>
}

/** Runs the CommonJS bundle at `bundle` as this process's program. */
export const runBundle = (bundle: URL, options: RunOptions = {}): CodeCacheState => {
  const bundlePath = fileURLToPath(bundle)
  const path = cachePath(bundlePath)
  const bundleSource = NodeFs.readFileSync(bundlePath)
  const digest = digestOf(bundleSource)
  const { found, cachedData } = cachedDataFor(path, digest)
  const source = `(function (${WRAPPER_PARAMETERS.join(", ")}) {${bundleSource.toString("utf8")}\n})`
  // The bundle holds no import(): compiled from a cache, a script would have lost its callback.
  const script = new NodeVm.Script(source, { filename: bundlePath, cachedData })
  const state: CodeCacheState = !found ? "absent" : cachedData === undefined || script.cachedDataRejected === true ? "rejected" : "accepted"
  const write = state !== "accepted" && writable(NodePath.dirname(bundlePath)) ? cacheWriter(script, path, digest) : undefined
  if (write !== undefined) process.once("exit", write)
  // After the program has run a while: the cache then holds the functions it ran, and is written
  // before the long run's flags change V8's.
  const flags = options.v8FlagsAfterStart ?? []
  if (write !== undefined || flags.length > 0) {
    setTimeout(() => {
      write?.()
      setV8Flags(flags, process.execArgv)
    }, WRITE_AFTER_MS).unref()
  }
  const module = { exports: {} }
  const run: unknown = script.runInThisContext()
  if (typeof run !== "function") throw new TypeError(`${bundlePath} did not compile to a function`)
  run(module.exports, createRequire(bundlePath), module, bundlePath, NodePath.dirname(bundlePath), bundle.href)
  return state
}
