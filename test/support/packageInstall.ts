import { Effect } from "effect"
import { spawn } from "node:child_process"
import * as NodeCrypto from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"

const ROOT = NodePath.resolve(import.meta.dirname, "../..")

interface LockEntry {
  readonly dev?: boolean
  readonly [field: string]: unknown
}

interface Lockfile {
  readonly packages: Record<string, LockEntry>
}

interface Manifest {
  readonly name: string
  readonly version: string
  readonly license: string
  readonly dependencies: Record<string, string>
  readonly bin: Record<string, string>
  readonly engines: Record<string, string>
}

const readJson = <A>(file: string) => JSON.parse(NodeFs.readFileSync(file, "utf8")) as A

export interface Finished {
  readonly code: number | null
  readonly output: string
}

/** A command to its end in `cwd`, stdout and stderr together; fails past `timeoutMs` (a hang). */
export const run = (command: string, args: ReadonlyArray<string>, options: { readonly cwd: string; readonly env: Record<string, string>; readonly timeoutMs: number }) =>
  Effect.async<Finished, Error>((resume) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      resume(Effect.fail(new Error(`${command} ${args.join(" ")} did not finish in ${options.timeoutMs} ms\n${output}`)))
    }, options.timeoutMs)
    child.once("error", (error) => {
      clearTimeout(timer)
      resume(Effect.fail(error))
    })
    child.once("exit", (code) => {
      clearTimeout(timer)
      resume(Effect.succeed({ code, output }))
    })
    return Effect.sync(() => {
      clearTimeout(timer)
      child.kill("SIGKILL")
    })
  })

/**
 * The lockfile of an app that depends on the packed tarball alone: the package itself, and every
 * package this repository's lockfile installs for production (not marked dev), where npm put
 * them. With it `npm ci --offline` takes each package from the npm cache that installing this
 * repository filled, by its integrity, and asks no registry.
 */
export const offlineLockfile = (appName: string, tarball: string) => {
  const manifest = readJson<Manifest>(NodePath.join(ROOT, "package.json"))
  const lock = readJson<Lockfile>(NodePath.join(ROOT, "package-lock.json"))
  const resolved = `file:${tarball}`
  const integrity = `sha512-${NodeCrypto.createHash("sha512").update(NodeFs.readFileSync(tarball)).digest("base64")}`
  const production = Object.entries(lock.packages).filter(([path, entry]) => path !== "" && entry.dev !== true)
  return {
    name: appName,
    lockfileVersion: 3,
    requires: true,
    packages: {
      "": { name: appName, dependencies: { [manifest.name]: resolved } },
      [`node_modules/${manifest.name}`]: {
        version: manifest.version,
        resolved,
        integrity,
        license: manifest.license,
        dependencies: manifest.dependencies,
        bin: manifest.bin,
        engines: manifest.engines
      },
      ...Object.fromEntries(production)
    }
  }
}

/**
 * Where node-gyp finds the headers to build a native module against this Node: its own install's
 * `include/node` when it ships them (official builds and distribution packages do), so that
 * nothing is downloaded.
 */
export const nodeHeaders = (): Record<string, string> => {
  const prefix = NodePath.resolve(NodePath.dirname(process.execPath), "..")
  return NodeFs.existsSync(NodePath.join(prefix, "include", "node", "node.h")) ? { npm_config_nodedir: prefix } : {}
}
